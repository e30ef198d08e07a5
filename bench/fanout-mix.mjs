// The chat mix of bench/fanout.mjs (BENCH_MIX=chat, issue 29): besides the messages, reactions
// (ordinary encrypted messages whose plaintext is the web's reaction, sent with `send_message` like
// any message) and typing signals (`reading_signal` envelopes built as the web's keyring builds
// them, relayed unstored to the room's readers), after the owner signed the `reading` link that
// switches them on. The plaintexts come from the web's own encoders (bundled here), so the sizes
// are the browser's.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { importBundle } from '../scripts/lib/workspace-bundle.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** BENCH_MIX=chat turns the mix on; anything else leaves the plain message run. */
export const MIX = process.env.BENCH_MIX === 'chat';
/** Reactions per message (BENCH_REACTIONS_PER_MESSAGE, 0.25: one per four messages). */
export const REACTIONS_PER_MESSAGE = Number(process.env.BENCH_REACTIONS_PER_MESSAGE ?? 0.25);
/** Typing signals per message (BENCH_TYPING_PER_MESSAGE, 1). */
export const TYPING_PER_MESSAGE = Number(process.env.BENCH_TYPING_PER_MESSAGE ?? 1);
/**
 * Members who type (BENCH_TYPISTS, 60 per Ring): at 20 messages/s, one typing signal per message
 * spread over 60 members is one per member every 3 s, the web's own pace while typing
 * (TYPING_SEND_EVERY_MS), well under the server's 60 per member and minute.
 */
export const TYPISTS = Number(process.env.BENCH_TYPISTS ?? 60);
const EMOJIS = ['👍', '❤️', '😂', '🎉', '👀'];

/** The web's encoders of reactions and typing signals, and its parser (to check what is sent). */
export async function loadWebEncoders() {
  const chat = path.join(ROOT, 'apps/web/src/features/ring/chat');
  return importBundle('web-encoders', {
    stdin: {
      contents: [
        `export { encodeSignal, parseSignal } from ${JSON.stringify(path.join(chat, 'reading-signals.ts'))};`,
        `export { encodeReaction } from ${JSON.stringify(path.join(chat, 'message-action-encoding.ts'))};`,
        `export { parseAction } from ${JSON.stringify(path.join(chat, 'message-actions.ts'))};`,
      ].join('\n'),
      resolveDir: ROOT,
      loader: 'ts',
    },
    alias: { '@': path.join(ROOT, 'apps/web/src') },
  });
}

/** The owner signs the log's `reading` link (typing indicators and read receipts on), as the web's setReading. */
export async function signReading(owner) {
  const log = await owner.syncLog();
  const link = await owner.e2ee.createLink(
    log,
    { type: 'reading', body: { typing: true, receipts: true } },
    owner.signer(),
  );
  const res = await owner.call('POST', '/api/rings/keys/log.php', { link });
  if (res.status !== 200) throw new Error(`reading link refused: ${res.status} ${JSON.stringify(res.json)}`);
  const verified = await owner.syncLog();
  if (!verified.reading?.typing) throw new Error('the verified log does not switch typing on');
  return verified;
}

/**
 * A typing signal of `member` for the room, as the web's keyring encrypts it (encryptText: v1
 * header with the log head it verified, the newest epoch key it holds).
 */
export async function typingEnvelope(web, member, log, conversationId = 'room:general') {
  const epoch = Math.max(...member.epochKeys.keys());
  const plaintext = web.encodeSignal({ k: 'typing' });
  if (web.parseSignal(plaintext)?.k !== 'typing') throw new Error('typing plaintext not read back');
  return member.e2ee.encryptMessage(
    {
      v: 1,
      ringId: member.ringId,
      conversationId,
      epoch,
      senderId: member.memberId,
      clientMessageId: randomUUID(),
      sentAt: new Date().toISOString(),
      logSeq: log.head.seq,
      logHash: log.head.hash,
    },
    plaintext,
    member.epochKeys.get(epoch),
    member.identity.signing.privateKey,
  );
}

/** The plaintext of a reaction (the web's encoder) to message `target`, checked with the web's parser. */
export function reactionPlaintext(web, target, n) {
  const plaintext = web.encodeReaction(
    { s: target.sender.memberId, m: target.clientMessageId },
    EMOJIS[n % EMOJIS.length],
    true,
  );
  if (web.parseAction(plaintext)?.kind !== 'react') throw new Error('reaction plaintext not read back');
  return plaintext;
}

/**
 * The times (ms from the start, at `rate` messages per second) of a Ring's extra events after
 * `count` messages: reactions and typing signals evenly between the messages.
 */
export function mixSchedule(count, rate) {
  const slot = 1000 / rate;
  const reactions = Math.floor(count * REACTIONS_PER_MESSAGE);
  const typing = Math.floor(count * TYPING_PER_MESSAGE);
  return {
    // A reaction to the message just before it; a typing signal half a slot after each message.
    reactions: Array.from({ length: reactions }, (_, k) => {
      const after = Math.min(count - 1, Math.floor(((k + 1) * count) / reactions) - 1);
      return { after, at: (after + 0.25) * slot };
    }),
    typing: Array.from({ length: typing }, (_, k) => ({ at: ((k * count) / typing + 0.5) * slot })),
  };
}
