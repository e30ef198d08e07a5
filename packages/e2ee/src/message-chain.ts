import type { MessageChain } from './envelope';

/**
 * Reading a sender's signed sequence (issue 27 M4): pure rules over the messages a reader holds and
 * verified. Each sending browser numbers its messages in a conversation (`MessageChain`); between
 * two held messages of one stream the reader checks the link and the numbering, so a server that
 * drops, forks or replays a member's messages is seen. Ephemeral messages may vanish (they expire):
 * a jump over ephemeral messages only is normal; a jump over a permanent one is a missing message.
 */

/** One verified v2 message as the checker needs it. */
export interface ChainedMessage {
  /** The reader's key for the message (unique per sender and client message id). */
  key: string;
  senderId: string;
  chain: MessageChain;
  /** Signed lifetime: true when the sender signed it permanent. */
  permanent: boolean;
  /** `messageHash` of its envelope. */
  hash: string;
}

/**
 * What the reader shows before message `before`: `gap`, a permanent message of this sender is
 * missing (dropped or deleted by the server); `fork`, the sender's sequence does not continue the
 * message before it (two different messages with one number, or a wrong link).
 */
export interface ChainBreak {
  kind: 'gap' | 'fork';
  before: string;
  senderId: string;
}

/**
 * Checks every sender's streams among `messages` (in the order the timeline shows them). Returns
 * the breaks to show and the keys of replayed copies (same number and same hash as a message
 * already held earlier in that order: the reader drops them). A stream's first held message is
 * not judged against what came before it (older pages, messages sent before the reader joined).
 */
export function checkMessageChains(messages: readonly ChainedMessage[]): {
  breaks: ChainBreak[];
  duplicates: string[];
} {
  const streams = new Map<string, { message: ChainedMessage; order: number }[]>();
  messages.forEach((message, order) => {
    const id = `${message.senderId}\u0000${message.chain.stream}`;
    const list = streams.get(id);
    if (list) list.push({ message, order });
    else streams.set(id, [{ message, order }]);
  });
  const breaks: ChainBreak[] = [];
  const duplicates: string[] = [];
  for (const list of streams.values()) {
    // By signed number (the server's order is only a claim); same number: timeline order.
    list.sort((a, b) => a.message.chain.counter - b.message.chain.counter || a.order - b.order);
    let previous: ChainedMessage | undefined;
    for (const { message } of list) {
      const kind = previous ? linkProblem(previous, message) : undefined;
      if (kind === 'duplicate') {
        duplicates.push(message.key);
        continue;
      }
      if (kind) breaks.push({ kind, before: message.key, senderId: message.senderId });
      previous = message;
    }
  }
  return { breaks, duplicates };
}

/** How `next` (numbered at or after `previous` in the same stream) follows it. */
export function linkProblem(
  previous: ChainedMessage,
  next: ChainedMessage,
): 'duplicate' | 'gap' | 'fork' | undefined {
  const a = previous.chain;
  const b = next.chain;
  if (b.counter === a.counter) return next.hash === previous.hash ? 'duplicate' : 'fork';
  // The last permanent message before `next`, as `previous` implies it.
  const implied = previous.permanent ? a.counter : a.lastPermanent;
  if (b.counter === a.counter + 1)
    return b.prevHash === previous.hash && b.lastPermanent === implied ? undefined : 'fork';
  // Numbers skipped: normal only when every skipped message was ephemeral.
  if (b.lastPermanent > a.counter) return 'gap';
  return b.lastPermanent === implied ? undefined : 'fork';
}
