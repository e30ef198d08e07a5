import { CHAIN_START_HASH, type MessageChain } from '@securering/e2ee';

/**
 * Where this browser keeps its signed message sequence (issue 27 M4): one random stream id per
 * member (all its tabs share it, through localStorage) and, per conversation, the last message it
 * signed (counter, hash, last permanent counter). Every device opens the same member identity, so
 * one signing key serves several browsers: each browser numbers its own stream, and two devices
 * sending at once never look like a fork. Counters and hashes only, never content; without
 * storage, the sequence lives as long as the page (a new stream after a reload).
 */
export interface MessageChainStore {
  /**
   * The place of a new message in this browser's sequence of `conversationId`. `reserved`: the
   * place this message had when it was signed before (a re-encryption after a 409, « Réessayer »),
   * kept when nothing was signed after it, so no number is skipped.
   */
  reserve(conversationId: string, reserved?: MessageChain): MessageChain;
  /** The message at `chain` was signed: its hash and lifetime become the link of the next one. */
  commit(conversationId: string, chain: MessageChain, hash: string, permanent: boolean): void;
  /** The message at `chain` was given up (« Retirer »): its number is free again if still the last. */
  release(conversationId: string, chain: MessageChain): void;
}

/** The last message a stream signed in a conversation. */
export interface SignedTip {
  counter: number;
  hash: string;
  lastPermanent: number;
}

interface Stored {
  stream: string;
  conversations: Record<string, SignedTip>;
}

const START: SignedTip = { counter: 0, hash: CHAIN_START_HASH, lastPermanent: 0 };

/** The place after `tip` (pure). */
export function nextLink(stream: string, tip: SignedTip | undefined, reserved?: MessageChain): MessageChain {
  const last = tip ?? START;
  if (reserved && reserved.stream === stream && reserved.counter === last.counter) return reserved;
  return { stream, counter: last.counter + 1, prevHash: last.hash, lastPermanent: last.lastPermanent };
}

/** The tip once the message at `chain` is signed (pure). */
export function tipAfter(chain: MessageChain, hash: string, permanent: boolean): SignedTip {
  return { counter: chain.counter, hash, lastPermanent: permanent ? chain.counter : chain.lastPermanent };
}

/** The tip once the message at `chain` is given up: back to what preceded it (pure). */
export function tipBefore(chain: MessageChain): SignedTip {
  return { counter: chain.counter - 1, hash: chain.prevHash, lastPermanent: chain.lastPermanent };
}

function isTip(value: unknown): value is SignedTip {
  const tip = value as SignedTip | null;
  return (
    typeof tip === 'object' &&
    tip !== null &&
    Number.isInteger(tip.counter) &&
    tip.counter >= 0 &&
    typeof tip.hash === 'string' &&
    /^[0-9a-f]{64}$/.test(tip.hash) &&
    Number.isInteger(tip.lastPermanent)
  );
}

const randomStream = () => {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
};

/** The store of `memberId` in this browser (localStorage; in memory where storage is refused). */
export function browserChainStore(memberId: string): MessageChainStore {
  const key = `securering.message-chain.${memberId}`;
  let memory: Stored | null = null;
  const save = (stored: Stored) => {
    memory = stored;
    try {
      localStorage.setItem(key, JSON.stringify(stored));
    } catch {
      // Kept in memory for this page.
    }
  };
  const load = (): Stored => {
    try {
      const parsed = JSON.parse(localStorage.getItem(key) ?? 'null') as Partial<Stored> | null;
      if (parsed && typeof parsed.stream === 'string' && /^[0-9a-f]{24}$/.test(parsed.stream)) {
        const conversations: Record<string, SignedTip> = {};
        for (const [id, tip] of Object.entries(parsed.conversations ?? {}))
          if (isTip(tip)) conversations[id] = tip;
        return { stream: parsed.stream, conversations };
      }
    } catch {
      // No storage: the page's own sequence below.
    }
    if (!memory) save({ stream: randomStream(), conversations: {} });
    return memory!;
  };
  return {
    reserve(conversationId, reserved) {
      const stored = load();
      return nextLink(stored.stream, stored.conversations[conversationId], reserved);
    },
    commit(conversationId, chain, hash, permanent) {
      const stored = load();
      if (chain.stream !== stored.stream) return;
      stored.conversations[conversationId] = tipAfter(chain, hash, permanent);
      save(stored);
    },
    release(conversationId, chain) {
      const stored = load();
      if (chain.stream !== stored.stream || stored.conversations[conversationId]?.counter !== chain.counter)
        return;
      stored.conversations[conversationId] = tipBefore(chain);
      save(stored);
    },
  };
}
