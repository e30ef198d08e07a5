import type { TGetMessagesResponse, TMessage } from '@securering/contract';
import {
  E2eeError,
  type EpochKey,
  type MessageChain,
  type MessageHeader,
  decryptMessage,
  encryptMessage,
  generateEpochKey,
  generateIdentity,
  parseEnvelope,
} from '@securering/e2ee';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RingKeys } from '../e2ee/use-ring-keys';
import type { ChatApi } from './chat-api';
import { messageTime } from './chat-policy';
import { ConversationFeed } from './conversation-feed';
import { browserChainStore, type MessageChainStore } from './message-chain-store';
import { deletedPlaceOf, encodeDelete, encodeEdit, encodeReaction } from './message-action-encoding';
import { deriveActions } from './message-actions';

/**
 * Issue 27 M4 through the chat feed with real envelopes: each browser signs its place in its
 * sequence; a reader shows « Message manquant » where the server dropped or deleted a message,
 * the signed time, and ignores the server's claims about a signed lifetime.
 */
const RING = 'ring-1';
const CONV = 'room:general';

/** A hostile server: stores what it is sent, and the test bends what it serves. */
class Server {
  messages: TMessage[] = [];
  failNext: Array<{ status: number; code?: string }> = [];
  epoch = 1;

  api(reader: string): ChatApi {
    return {
      getMessages: async (): Promise<TGetMessagesResponse> => ({
        success: true,
        messages: this.messages.map((m) => ({ ...m, isOwn: m.sender.id === reader })),
        hasMore: false,
        lastSeq: this.messages.length,
      }),
      send: async (body) => {
        const failure = this.failNext.shift();
        if (failure) throw Object.assign(new Error('refusé'), { status: failure.status, body: failure });
        const { header } = parseEnvelope(body.content);
        if (header.epoch !== this.epoch)
          throw Object.assign(new Error('clé'), { status: 409, body: { code: 'epoch_stale' } });
        return { message: this.store(header.senderId, body.content) };
      },
    };
  }

  store(sender: string, content: string, extra: Partial<TMessage> = {}): TMessage {
    const { header } = parseEnvelope(content);
    const seq = (this.messages.at(-1)?.seq ?? 0) + 1;
    const message: TMessage = {
      id: `id-${seq}`,
      seq,
      conversationId: CONV,
      clientMessageId: header.clientMessageId,
      epoch: header.epoch,
      content,
      messageType: 'text',
      sender: { id: sender, username: sender === 'alice' ? 'Alice' : sender },
      timestamp: new Date().toISOString(),
      isOwn: false,
      encrypted: true,
      clientEncrypted: true,
      isEphemeral: header.ephemeralSec !== undefined,
      expiresAt: null,
      readAt: null,
      ...extra,
    };
    this.messages.push(message);
    return message;
  }
}

async function world() {
  const identities = { alice: await generateIdentity(), bob: await generateIdentity() };
  const epochs = new Map<number, EpochKey>();
  for (const epoch of [1, 2])
    epochs.set(epoch, await generateEpochKey({ ringId: RING, epoch, level: 'standard' }));
  const server = new Server();
  const encrypted: MessageHeader[] = [];
  /** Envelopes whose key has not reached the reader yet. */
  const withheld = new Set<string>();
  const keysOf = (member: 'alice' | 'bob'): RingKeys =>
    ({
      ensureSendableEpoch: async () => epochs.get(server.epoch)!,
      encryptText: async (
        conversationId: string,
        plaintext: string,
        key: EpochKey,
        clientMessageId = crypto.randomUUID(),
        ephemeralSec?: number | null,
        chain?: MessageChain,
      ) => {
        const header: MessageHeader = {
          ...(chain ? { v: 2 as const, chain } : { v: 1 as const }),
          ringId: RING,
          conversationId,
          epoch: key.epoch,
          senderId: member,
          clientMessageId,
          sentAt: new Date().toISOString(),
          ...(ephemeralSec ? { ephemeralSec } : {}),
        };
        encrypted.push(header);
        return {
          content: await encryptMessage(header, plaintext, key, identities[member].signing.privateKey),
          header,
        };
      },
      decryptText: (content: string, conversationId: string) =>
        withheld.has(content)
          ? Promise.reject(new E2eeError('missing_key', 'pas encore'))
          : decryptMessage(
              content,
              { ringId: RING, conversationId },
              {
                epochKey: (epoch) => epochs.get(epoch),
                senderVerifyKey: (id) => identities[id as 'alice' | 'bob']?.signing.publicKey,
              },
            ),
    }) as unknown as RingKeys;
  const feed = (
    member: 'alice' | 'bob',
    extra: { chainStore?: MessageChainStore; ephemeralSec?: number } = {},
  ) =>
    new ConversationFeed({
      conversationId: CONV,
      memberId: member,
      username: member,
      api: server.api(member),
      keys: () => keysOf(member),
      ephemeralSec: () => extra.ephemeralSec ?? null,
      sleep: () => Promise.resolve(),
      ...(extra.chainStore ? { chainStore: extra.chainStore } : {}),
    });
  /** Alice legacy (v1) message written straight to the server, as before this change. */
  const legacy = async (text: string, extra: Partial<TMessage> = {}) => {
    const header: MessageHeader = {
      v: 1,
      ringId: RING,
      conversationId: CONV,
      epoch: 1,
      senderId: 'alice',
      clientMessageId: crypto.randomUUID(),
      sentAt: new Date().toISOString(),
    };
    return server.store(
      'alice',
      await encryptMessage(header, text, epochs.get(1)!, identities.alice.signing.privateKey),
      extra,
    );
  };
  return { server, feed, encrypted, legacy, withheld };
}

/** Lets sends and decryptions finish (each decryption is real WebCrypto: wait until none is pending). */
async function settle(feed?: ConversationFeed) {
  for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 0));
  for (
    let i = 0;
    i < 500 && feed && [...feed.getSnapshot().reads.values()].some((r) => r.state === 'pending');
    i++
  )
    await new Promise((r) => setTimeout(r, 5));
}

async function sendAll(feed: ConversationFeed, texts: string[]) {
  for (const text of texts) {
    expect(feed.send(text)).toBe(true);
    // Until the send is over (stored or failed), however slow the machine.
    for (let i = 0; i < 500 && feed.getSnapshot().sending; i++) await new Promise((r) => setTimeout(r, 5));
    await settle();
  }
}

const shown = (feed: ConversationFeed) => {
  const { entries, reads, duplicates } = feed.getSnapshot();
  return entries
    .filter((e) => !duplicates.has(e.key))
    .map((e) => {
      const read = reads.get(e.key);
      return read?.state === 'ok' ? read.text : read?.state;
    });
};

/** The timeline as a reader sees it, with the « Message manquant » lines. */
const timeline = (feed: ConversationFeed) => {
  const { entries, reads, missing, duplicates } = feed.getSnapshot();
  return entries.flatMap((e) => {
    if (duplicates.has(e.key)) return [];
    const read = reads.get(e.key);
    const text = read?.state === 'ok' ? read.text : String(read?.state);
    return missing.has(e.key) ? [`[${missing.get(e.key)}]`, text] : [text];
  });
};

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('signed message sequence in the chat (issue 27 M4)', () => {
  it('the server deletes a message between two sends: « Message manquant » where it was', async () => {
    const { server, feed, encrypted } = await world();
    const alice = feed('alice');
    await alice.load();
    await sendAll(alice, ['un', 'deux', 'trois']);
    expect(encrypted.map((h) => [h.v, h.chain?.counter])).toEqual([
      [2, 1],
      [2, 2],
      [2, 3],
    ]);
    const intact = feed('bob');
    await intact.load();
    await settle(intact);
    expect(timeline(intact)).toEqual(['un', 'deux', 'trois']);
    // The server drops « deux » (no signed deletion): a reader sees the hole.
    server.messages.splice(1, 1);
    const bob = feed('bob');
    await bob.load();
    await settle(bob);
    expect(timeline(bob)).toEqual(['un', '[gap]', 'trois']);
  });

  it('shows no gap while the message in between waits for its key, nor once it is read', async () => {
    const { server, feed, withheld } = await world();
    const alice = feed('alice');
    await alice.load();
    await sendAll(alice, ['un', 'deux', 'trois']);
    withheld.add(server.messages[1]!.content);
    const bob = feed('bob');
    await bob.load();
    await settle(bob);
    expect(timeline(bob)).toEqual(['un', 'waiting', 'trois']);
    withheld.clear();
    bob.retryWaiting();
    await settle(bob);
    expect(timeline(bob)).toEqual(['un', 'deux', 'trois']);
  });

  it('shows the time the sender signed, not the server’s (backdated) one', async () => {
    const { server, feed } = await world();
    const alice = feed('alice');
    await alice.load();
    await sendAll(alice, ['à l’heure']);
    const signedAt = parseEnvelope(server.messages[0]!.content).header.sentAt;
    server.messages[0]!.timestamp = '2020-01-01T08:00:00.000Z';
    const bob = feed('bob');
    await bob.load();
    await settle(bob);
    const { entries, reads } = bob.getSnapshot();
    const read = reads.get(entries[0]!.key);
    expect(read?.state).toBe('ok');
    const signed = read?.state === 'ok' ? read.signed?.sentAt : undefined;
    expect(messageTime(entries[0]!.timestamp, signed)).toEqual({ iso: signedAt, signed: true });
  });

  it('the server replays an old message or reorders: shown once, no false alarm', async () => {
    const { server, feed } = await world();
    const alice = feed('alice');
    await alice.load();
    await sendAll(alice, ['un', 'deux', 'trois']);
    // Replay of « un » under a new id and number.
    server.store('alice', server.messages[0]!.content);
    // And « deux » / « trois » swapped.
    const [m1, m2, m3, m4] = server.messages;
    server.messages = [m1!, { ...m3!, seq: 2 }, { ...m2!, seq: 3 }, m4!];
    const bob = feed('bob');
    await bob.load();
    await settle(bob);
    expect(shown(bob)).toEqual(['un', 'trois', 'deux']);
    expect(bob.getSnapshot().missing.size).toBe(0);
  });

  it('ignores the server’s expiry claims on a message signed permanent, and its deletion push', async () => {
    const { server, feed, legacy } = await world();
    const alice = feed('alice');
    await alice.load();
    await sendAll(alice, ['pour toujours']);
    const past = '2020-01-01T00:00:00.000Z';
    Object.assign(server.messages[0]!, { isEphemeral: true, expiresAt: past });
    // A legacy message keeps the server's claims (no signed permanence).
    await legacy('ancien', { isEphemeral: true, expiresAt: past });
    await legacy('ancien permanent');
    const bob = feed('bob');
    await bob.load();
    await settle(bob);
    expect(shown(bob)).toEqual(['pour toujours', 'ancien permanent']);
    const { entries } = bob.getSnapshot();
    bob.removeIds(entries.map((e) => e.id!));
    await settle();
    expect(shown(bob)).toEqual(['pour toujours']);
  });

  it('removes a signed ephemeral message at its signed expiry even when the server says permanent', async () => {
    const { server, feed } = await world();
    const alice = feed('alice', { ephemeralSec: 1 });
    await alice.load();
    await sendAll(alice, ['éphémère']);
    Object.assign(server.messages[0]!, { isEphemeral: false, expiresAt: null });
    const bob = feed('bob');
    await bob.load();
    await settle(bob);
    expect(bob.getSnapshot().entries[0]).toMatchObject({ isEphemeral: true, expiresAt: null });
    expect(shown(bob)).toEqual(['éphémère']);
    bob.markDisplayed();
    await new Promise((r) => setTimeout(r, 1_200));
    expect(shown(bob)).toEqual([]);
  });

  it('keeps one number per message across a re-encryption, and frees it when a failed message is removed', async () => {
    const { server, feed, encrypted } = await world();
    const alice = feed('alice');
    await alice.load();
    server.epoch = 2;
    server.failNext.push({ status: 409, code: 'epoch_stale' });
    await sendAll(alice, ['après rotation']);
    server.failNext.push({ status: 400 });
    await sendAll(alice, ['refusé']);
    const failed = alice.getSnapshot().entries.find((e) => e.status === 'failed')!;
    alice.discard(failed.key);
    await sendAll(alice, ['suivant']);
    expect(encrypted.map((h) => h.chain?.counter)).toEqual([1, 1, 2, 2]);
    const bob = feed('bob');
    await bob.load();
    await settle(bob);
    expect(timeline(bob)).toEqual(['après rotation', 'suivant']);
  });

  it('survives a reload (localStorage), and two browsers of one member are two streams, not a fork', async () => {
    const storage = new Map<string, string>();
    vi.stubGlobal('localStorage', {
      getItem: (k: string) => storage.get(k) ?? null,
      setItem: (k: string, v: string) => void storage.set(k, v),
    });
    const { feed, encrypted } = await world();
    const tab = feed('alice');
    await tab.load();
    await sendAll(tab, ['un']);
    tab.dispose();
    const reloaded = feed('alice');
    await reloaded.load();
    await settle(reloaded);
    await sendAll(reloaded, ['deux']);
    // Another device of Alice (its own storage): its own stream from 1.
    const phone = feed('alice', { chainStore: browserChainStore('alice-phone-storage') });
    vi.unstubAllGlobals();
    await phone.load();
    await settle(phone);
    await sendAll(phone, ['depuis le téléphone']);
    vi.stubGlobal('localStorage', {
      getItem: (k: string) => storage.get(k) ?? null,
      setItem: (k: string, v: string) => void storage.set(k, v),
    });
    await sendAll(reloaded, ['trois']);
    expect(encrypted.map((h) => h.chain?.counter)).toEqual([1, 2, 1, 3]);
    expect(new Set(encrypted.map((h) => h.chain?.stream)).size).toBe(2);
    const bob = feed('bob');
    await bob.load();
    await settle(bob);
    expect(timeline(bob)).toEqual(['un', 'deux', 'depuis le téléphone', 'trois']);
  });

  it('issue 29: actions sent at once go one after the other, each stored, in one signed sequence', async () => {
    const { server, feed, encrypted } = await world();
    const alice = feed('alice');
    await alice.load();
    await sendAll(alice, ['un']);
    const target = { s: 'alice', m: alice.getSnapshot().entries[0]!.clientMessageId };
    const results = await Promise.all([
      alice.sendAction(encodeReaction(target, '👍', true)),
      alice.sendAction(encodeReaction(target, '❤️', true)),
      alice.sendAction(encodeEdit(target, 'un, corrigé')),
    ]);
    expect(results).toEqual([true, true, true]);
    expect(server.messages).toHaveLength(4);
    expect(encrypted.map((h) => h.chain?.counter)).toEqual([1, 2, 3, 4]);
    const bob = feed('bob');
    await bob.load();
    await settle(bob);
    const { entries, reads, missing } = bob.getSnapshot();
    expect(missing.size).toBe(0);
    const derived = deriveActions(entries, reads, 'bob');
    expect(derived.texts.get(entries[0]!.key)).toBe('un, corrigé');
    expect(derived.reactions.get(entries[0]!.key)?.map((r) => r.emoji)).toEqual(['👍', '❤️']);
  });

  it('issue 29: a message deleted by its sender’s signed deletion is « Message supprimé », not missing; without it, or forged by another member, it is missing', async () => {
    const { server, feed } = await world();
    const alice = feed('alice');
    await alice.load();
    await sendAll(alice, ['un', 'deux', 'trois']);
    const target = alice.getSnapshot().entries[1]!;
    const place = await deletedPlaceOf(target.content);
    expect(place).toMatchObject({ chain: { counter: 2 }, permanent: true });
    const deleteDeux = encodeDelete({ s: 'alice', m: target.clientMessageId }, place);
    // Bob forges Alice's deletion (same body, his signature), and the server drops « deux ».
    const bobFeed = feed('bob');
    await bobFeed.load();
    await settle(bobFeed);
    expect(await bobFeed.sendAction(deleteDeux)).toBe(true);
    server.messages.splice(1, 1);
    const reader = feed('bob');
    await reader.load();
    await settle(reader);
    const forged = reader.getSnapshot();
    expect([...forged.missing.values()]).toEqual(['gap']);
    expect(deriveActions(forged.entries, forged.reads, 'bob').deleted.size).toBe(0);

    // Alice's own signed deletion: the place is filled, « Message supprimé » shows instead.
    expect(await alice.sendAction(deleteDeux)).toBe(true);
    const after = feed('bob');
    await after.load();
    await settle(after);
    const snapshot = after.getSnapshot();
    expect(snapshot.missing.size).toBe(0);
    const derived = deriveActions(snapshot.entries, snapshot.reads, 'bob');
    expect(derived.deleted.has(target.key)).toBe(true);
    expect(derived.tombstones.size).toBe(1);
    // Alice's deletion continues her own sequence: a later message of hers links as usual.
    await sendAll(alice, ['quatre']);
    await after.catchUp();
    await settle(after);
    expect(after.getSnapshot().missing.size).toBe(0);
  });
});
