import {
  MAX_JOIN_CATCH_UP,
  type TConversationSummary,
  type TJoinCatchUp,
  type TJoinMissed,
} from '@securering/contract';
import type { JoinExtras, TJoinRingAnswer } from '@/lib/realtime';

/** What a join_ring brought a source, for what it asked. */
export interface JoinAnswered {
  /** The conversations asked (of every source). */
  asked: ReadonlySet<string>;
  /** The answers among them: a conversation held but not answered catches up another way. */
  missed: ReadonlyMap<string, TJoinMissed>;
  /** The caller's conversations with their unread counts, when asked. */
  conversations: readonly TConversationSummary[] | undefined;
  /** The Ring's key revision, when asked (keys/state.php's `keyRevision` of a state still current). */
  keyRevision: number | undefined;
}

/** A feature whose state a join_ring brings up to date (the chat's feeds and list, the keyring). */
export interface JoinCatchUpSource {
  /** The conversations held now, each with the highest sequence number held. */
  held(): TJoinCatchUp[];
  /** Whether the answer should carry the conversation list (a room page shows it). */
  wantsConversations?(): boolean;
  /** Whether the answer should carry the Ring's key revision (the keyring). */
  wantsKeyRevision?(): boolean;
  /** join_ring was answered. */
  joined(answer: JoinAnswered): void;
}

/**
 * Between the room's socket and the features that catch up at each join: gathers what they hold
 * for join_ring's `catchUp` (at most MAX_JOIN_CATCH_UP conversations, in the order the sources
 * registered) and whether to bring the conversation list and the key revision, hands them the
 * answer, and tells whether the socket is joined now (pushes that skip sequence numbers before the
 * answer arrives wait for it rather than fetch what it brings).
 */
export class JoinCatchUpHub {
  private readonly sources = new Set<JoinCatchUpSource>();
  private joinedNow = false;

  register(source: JoinCatchUpSource): () => void {
    this.sources.add(source);
    return () => this.sources.delete(source);
  }

  /** True between a join_ring answer and the next drop of the connection. */
  get isJoined(): boolean {
    return this.joinedNow;
  }

  /** What the next join_ring asks besides the Ring. */
  request(): JoinExtras {
    const catchUp: TJoinCatchUp[] = [];
    const seen = new Set<string>();
    let conversations = false;
    let keyRevision = false;
    for (const source of this.sources) {
      if (source.wantsConversations?.()) conversations = true;
      if (source.wantsKeyRevision?.()) keyRevision = true;
      for (const item of source.held()) {
        if (catchUp.length >= MAX_JOIN_CATCH_UP || seen.has(item.conversationId)) continue;
        seen.add(item.conversationId);
        catchUp.push(item);
      }
    }
    return {
      ...(catchUp.length > 0 ? { catchUp } : {}),
      ...(conversations ? { conversations } : {}),
      ...(keyRevision ? { keyRevision } : {}),
    };
  }

  /** The connection dropped (or is being made): the socket is not joined. */
  left(): void {
    this.joinedNow = false;
  }

  /** join_ring answered `answer` for `asked`. */
  answered(
    answer: Pick<TJoinRingAnswer, 'missed' | 'conversations' | 'keyRevision'>,
    asked: JoinExtras,
  ): void {
    this.joinedNow = true;
    const askedIds = new Set((asked.catchUp ?? []).map((item) => item.conversationId));
    const missed = new Map(
      (answer.missed ?? []).filter((m) => askedIds.has(m.conversationId)).map((m) => [m.conversationId, m]),
    );
    const conversations = asked.conversations ? answer.conversations : undefined;
    const keyRevision = asked.keyRevision ? answer.keyRevision : undefined;
    for (const source of [...this.sources])
      source.joined({ asked: askedIds, missed, conversations, keyRevision });
  }
}
