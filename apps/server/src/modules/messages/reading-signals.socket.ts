import {
  CHAT_MESSAGES,
  E2EE_MESSAGES,
  READING_SIGNALS_PER_MINUTE,
  ZReadingSignal,
  type TReadingSignal,
  type TReadingSignalEvent,
} from '@securering/contract';
import { readEnvelopeHeader } from '@securering/e2ee';
import type { AppContext } from '../../app-context';
import type { SocketFeature } from '../../realtime/realtime-server';
import type { SocketEventBinder } from '../../realtime/socket-events';
import type { RingMembership } from '../rings/ring.guard';
import { checkEnvelopeHeader, mayAccessConversation, parseConversationId } from './messages.policy';
import { MessagesRepository } from './messages.repository';

/**
 * Typing indicators and read receipts (issue 29), relayed and never stored: the caller must be a
 * member who may read the conversation (the room: any active member; a private conversation: its
 * two participants), the content an envelope whose header names this Ring, this conversation and
 * the caller (plaintext is refused). The room's signal goes to the Ring's readers, a private
 * conversation's to its other participant. What the server learns: who signals in which
 * conversation and when — not whether it is typing or reading (docs/SECURITY.md).
 */
export class ReadingSignalsService {
  private readonly messages: MessagesRepository;

  constructor(private readonly ctx: AppContext) {
    this.messages = new MessagesRepository(ctx.db, ctx.database);
  }

  /** Relays the signal; the French refusal otherwise (nothing is sent then). */
  async relay(
    caller: RingMembership,
    input: TReadingSignal,
  ): Promise<{ ok: true } | { ok: false; error: string }> {
    const { member, ring } = caller;
    const ref = parseConversationId(input.conversationId);
    const missing = { ok: false as const, error: CHAT_MESSAGES.conversationNotFound };
    if (!ref) return missing;
    let header;
    try {
      header = readEnvelopeHeader(input.content);
    } catch {
      return { ok: false, error: E2EE_MESSAGES.plaintextRefused };
    }
    const mismatch = checkEnvelopeHeader(header, {
      ringId: ring.id,
      conversationId: input.conversationId,
      senderId: member.id,
    });
    if (mismatch) return { ok: false, error: mismatch.error };
    const event: TReadingSignalEvent = {
      ringId: ring.id,
      conversationId: input.conversationId,
      fromUserId: member.id,
      content: input.content,
    };
    if (ref.kind === 'room') {
      // To the other members (as for a private conversation): a tab never hears its own signals.
      this.ctx.realtime.emitToOtherRingReaders(ring.id, member.id, 'reading_signal', event);
      return { ok: true };
    }
    if (!ref.members.includes(member.id)) return missing;
    const row = await this.messages.findConversation(ring.id, input.conversationId);
    if (!row || row.kind !== 'dm') return missing;
    const participants = await this.messages.participants(row.id);
    if (!mayAccessConversation({ kind: 'dm', participants }, member.id)) return missing;
    for (const participant of participants)
      if (participant !== member.id) this.ctx.realtime.emitToMember(participant, 'reading_signal', event);
    return { ok: true };
  }
}

/** `reading_signal` through the socket event layer (Ring, joined socket, rate, live membership). */
export function readingSignalsSocketFeature(ctx: AppContext, bind: SocketEventBinder): SocketFeature {
  const service = new ReadingSignalsService(ctx);
  return {
    onConnection(socket) {
      bind(
        socket,
        'reading_signal',
        { schema: ZReadingSignal, perMinute: READING_SIGNALS_PER_MINUTE },
        async (input, { membership }, ack) => ack(await service.relay(membership, input)),
      );
    },
  };
}
