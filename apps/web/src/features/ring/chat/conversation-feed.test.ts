import type { TGetMessagesResponse, TMessage, TSendMessageRequest } from '@securering/contract';
import { E2eeError, type EpochKey, type MessageHeader } from '@securering/e2ee';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RingKeys } from '../e2ee/use-ring-keys';
import type { ChatApi } from './chat-api';
import { ConversationFeed } from './conversation-feed';
import { encodeCallNotice, parseCallNotice } from '../calls/call-notice';

const CONV = 'room:general';

/**
 * A fake server with the send rules the feed relies on: sequence numbers, one message per
 * (sender, client id), 409 epoch_stale for an envelope under an old epoch, and failures on demand.
 * Envelopes are "e<epoch>|<client id>|<text>" (the feed treats them as opaque).
 */
class FakeServer {
  messages: TMessage[] = [];
  epoch = 1;
  sends: TSendMessageRequest[] = [];
  failNext: Array<{ status: number; code?: string; message?: string }> = [];
  gets: Array<{ since?: number; before?: number }> = [];
  /** The sequence numbers whose send answer carries `rotationSoon`. */
  rotationSoonAt: number[] = [];

  store(sender: string, clientMessageId: string, content: string, extra: Partial<TMessage> = {}): TMessage {
    const existing = this.messages.find(
      (m) => m.sender.id === sender && m.clientMessageId === clientMessageId,
    );
    if (existing) return existing;
    const seq = this.messages.length + 1;
    const message: TMessage = {
      id: `id-${seq}`,
      seq,
      conversationId: CONV,
      clientMessageId,
      epoch: this.epoch,
      content,
      messageType: 'text',
      sender: { id: sender, username: sender },
      timestamp: new Date().toISOString(),
      isOwn: sender === 'me',
      encrypted: true,
      clientEncrypted: true,
      isEphemeral: false,
      expiresAt: null,
      readAt: null,
      ...extra,
    };
    this.messages.push(message);
    return message;
  }

  api(): ChatApi {
    return {
      getMessages: async ({ since, before, limit = 50 }): Promise<TGetMessagesResponse> => {
        this.gets.push({
          ...(since !== undefined ? { since } : {}),
          ...(before !== undefined ? { before } : {}),
        });
        let list = this.messages;
        if (since !== undefined) list = list.filter((m) => m.seq > since).slice(0, limit);
        else if (before !== undefined) list = list.filter((m) => m.seq < before).slice(-limit);
        else list = list.slice(-limit);
        const hasMore =
          since !== undefined
            ? this.messages.some((m) => m.seq > (list.at(-1)?.seq ?? since))
            : this.messages.some((m) => m.seq < (list[0]?.seq ?? 0));
        return { success: true, messages: list, hasMore, lastSeq: this.messages.length };
      },
      send: async (body) => {
        this.sends.push(body);
        const failure = this.failNext.shift();
        if (failure)
          throw Object.assign(new Error(failure.message ?? 'échec'), {
            status: failure.status,
            body: failure,
          });
        const [epochPart, clientId] = body.content.split('|') as [string, string];
        if (Number(epochPart.slice(1)) !== this.epoch)
          throw Object.assign(new Error('Une nouvelle clé'), { status: 409, body: { code: 'epoch_stale' } });
        const message = this.store('me', clientId, body.content);
        return this.rotationSoonAt.includes(message.seq) ? { message, rotationSoon: true } : { message };
      },
    };
  }
}

function fakeKeys(server: FakeServer, overrides: Partial<RingKeys> = {}) {
  const ensure = vi.fn(async () => ({ epoch: server.epoch }) as unknown as EpochKey);
  const keys = {
    ensureSendableEpoch: ensure,
    rotateAhead: vi.fn(),
    encryptText: vi.fn(
      async (conversationId: string, text: string, key: EpochKey, clientMessageId?: string) => ({
        content: `e${key.epoch}|${clientMessageId}|${text}`,
        header: { conversationId, clientMessageId } as MessageHeader,
      }),
    ),
    decryptText: vi.fn(async (content: string) => {
      const [, clientMessageId, text] = content.split('|') as [string, string, string];
      const sender = server.messages.find((m) => m.content === content)?.sender.id ?? 'me';
      return { header: { senderId: sender, clientMessageId } as MessageHeader, plaintext: text };
    }),
  };
  return Object.assign(keys, overrides) as typeof keys & RingKeys;
}

function feedFor(
  server: FakeServer,
  keys: RingKeys,
  extra: { onSendError?: (m: string) => void; joined?: () => boolean } = {},
) {
  return new ConversationFeed({
    conversationId: CONV,
    memberId: 'me',
    username: 'moi',
    api: server.api(),
    keys: () => keys,
    ephemeralSec: () => null,
    sleep: () => Promise.resolve(),
    ...extra,
  });
}

const texts = (feed: ConversationFeed) =>
  feed.getSnapshot().entries.map((e) => {
    const read = feed.getSnapshot().reads.get(e.key);
    return read?.state === 'ok' ? read.text : read?.state;
  });

async function settle() {
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 0));
}

afterEach(() => vi.useRealTimers());

describe('conversation feed', () => {
  it('loads, decrypts, and catches up after the highest sequence number only', async () => {
    const server = new FakeServer();
    server.store('bob', 'c1', 'e1|c1|un');
    server.store('bob', 'c2', 'e1|c2|deux');
    const feed = feedFor(server, fakeKeys(server));
    await feed.load();
    await settle();
    expect(texts(feed)).toEqual(['un', 'deux']);
    server.store('bob', 'c3', 'e1|c3|trois');
    expect(await feed.catchUp()).toBe(true);
    await settle();
    expect(server.gets.at(-1)).toEqual({ since: 2 });
    expect(texts(feed)).toEqual(['un', 'deux', 'trois']);
    expect(await feed.catchUp()).toBe(false);
  });

  it('after an admission, reads the latest page again and merges what the server now serves', async () => {
    const server = new FakeServer();
    server.store('bob', 'c1', 'e1|c1|avant');
    // While the member waited for admission the server served nothing.
    const withheld = server.messages.splice(0);
    const feed = feedFor(server, fakeKeys(server));
    await feed.load();
    expect(texts(feed)).toEqual([]);
    Object.assign(server.store('bob', 'c2', 'e1|c2|pendant'), { seq: 2, id: 'id-2' });
    expect(await feed.catchUp()).toBe(true);
    await settle();
    expect(texts(feed)).toEqual(['pendant']);
    // Admitted with the history: the earlier message is served now; a catch-up (after seq 2)
    // would never ask for it, the reload does.
    server.messages = [...withheld, ...server.messages];
    await feed.reloadLatest();
    await settle();
    expect(texts(feed)).toEqual(['avant', 'pendant']);
  });

  it('loads the latest page, then older pages before the oldest message held', async () => {
    const server = new FakeServer();
    for (let i = 1; i <= 120; i++) server.store('bob', `c${i}`, `e1|c${i}|m${i}`);
    const feed = feedFor(server, fakeKeys(server));
    await feed.load();
    const seqs = () => feed.getSnapshot().entries.map((e) => e.seq);
    expect(seqs()).toEqual(Array.from({ length: 50 }, (_, i) => 71 + i));
    expect(feed.getSnapshot().hasOlder).toBe(true);
    await feed.loadOlder();
    expect(server.gets.at(-1)).toEqual({ before: 71 });
    expect(seqs()).toEqual(Array.from({ length: 100 }, (_, i) => 21 + i));
    await feed.loadOlder();
    expect(seqs()).toEqual(Array.from({ length: 120 }, (_, i) => 1 + i));
    expect(feed.getSnapshot().hasOlder).toBe(false);
  });

  it('shows a pushed message once even when catch-up brings it again, and catches up on a gap', async () => {
    const server = new FakeServer();
    const feed = feedFor(server, fakeKeys(server));
    await feed.load();
    const m1 = server.store('bob', 'c1', 'e1|c1|un');
    const push = (m: TMessage) =>
      feed.receive({
        messageId: m.id,
        fromUsername: m.sender.username,
        fromUserId: m.sender.id,
        content: m.content,
        messageType: 'text',
        conversationId: CONV,
        ringId: 'ring-1',
        timestamp: m.timestamp,
        seq: m.seq,
        clientMessageId: m.clientMessageId,
        epoch: 1,
        isEphemeral: false,
        expiresAt: null,
      });
    push(m1);
    push(m1);
    await feed.catchUp();
    await settle();
    expect(texts(feed)).toEqual(['un']);
    // Messages 2 and 3 were missed (socket down); 4 arrives: the gap is filled from the database.
    server.store('bob', 'c2', 'e1|c2|deux');
    server.store('bob', 'c3', 'e1|c3|trois');
    push(server.store('bob', 'c4', 'e1|c4|quatre'));
    await settle();
    expect(texts(feed)).toEqual(['un', 'deux', 'trois', 'quatre']);
    expect(feed.getSnapshot().entries.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
  });

  it('catches up from the join_ring answer without get.php, and holds gapped pushes until it comes', async () => {
    const server = new FakeServer();
    server.store('bob', 'c1', 'e1|c1|un');
    let joined = true;
    const feed = feedFor(server, fakeKeys(server), { joined: () => joined });
    expect(feed.joinCatchUp()).toBeUndefined();
    await feed.load();
    expect(feed.joinCatchUp()).toEqual({ conversationId: CONV, since: 1 });
    const gets = server.gets.length;
    // The socket dropped; 2 and 3 were sent meanwhile. It reconnects and 4 is pushed before the
    // join_ring answer: it waits (no get.php), then shows after 2 and 3, which the answer brings.
    joined = false;
    const missed = [server.store('bob', 'c2', 'e1|c2|deux'), server.store('bob', 'c3', 'e1|c3|trois')];
    const m4 = server.store('bob', 'c4', 'e1|c4|quatre');
    feed.receive({
      messageId: m4.id,
      fromUsername: 'bob',
      fromUserId: 'bob',
      content: m4.content,
      messageType: 'text',
      conversationId: CONV,
      ringId: 'ring-1',
      timestamp: m4.timestamp,
      seq: 4,
      clientMessageId: 'c4',
      epoch: 1,
      isEphemeral: false,
      expiresAt: null,
    });
    await settle();
    expect(texts(feed)).toEqual(['un']);
    joined = true;
    feed.joined({ conversationId: CONV, messages: missed, hasMore: false });
    await settle();
    expect(texts(feed)).toEqual(['un', 'deux', 'trois', 'quatre']);
    expect(server.gets.length).toBe(gets);
    expect(feed.joinCatchUp()).toEqual({ conversationId: CONV, since: 4 });

    // Past the answer's page (hasMore), or without an answer, get.php goes on after the highest.
    const page = [server.store('bob', 'c5', 'e1|c5|cinq')];
    server.store('bob', 'c6', 'e1|c6|six');
    feed.joined({ conversationId: CONV, messages: page, hasMore: true });
    await settle();
    expect(server.gets.at(-1)).toEqual({ since: 5 });
    server.store('bob', 'c7', 'e1|c7|sept');
    feed.joined(undefined);
    await settle();
    expect(server.gets.at(-1)).toEqual({ since: 6 });
    expect(feed.getSnapshot().entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('sends once: blank text and a second send while one is in progress are ignored', async () => {
    const server = new FakeServer();
    const feed = feedFor(server, fakeKeys(server));
    await feed.load();
    expect(feed.send('   ')).toBe(false);
    expect(feed.send('Bonjour')).toBe(true);
    expect(feed.getSnapshot().entries[0]).toMatchObject({ status: 'sending', id: null });
    expect(feed.send('Bonjour')).toBe(false);
    await settle();
    expect(server.sends).toHaveLength(1);
    expect(feed.getSnapshot().entries).toHaveLength(1);
    expect(feed.getSnapshot().entries[0]).toMatchObject({ status: 'sent', seq: 1 });
    expect(texts(feed)).toEqual(['Bonjour']);
    expect(feed.getSnapshot().sending).toBe(false);
  });

  it('typed text never passes for a call entry; the call timeline’s own entries do (issue 29)', async () => {
    const server = new FakeServer();
    const feed = feedFor(server, fakeKeys(server));
    await feed.load();
    const entry = encodeCallNotice({ callId: 'c1', video: false, outcome: 'missed', durationSec: 0 });
    expect(feed.send(entry)).toBe(true);
    await settle();
    expect(feed.send(entry, 'bob', 'call_notice')).toBe(true);
    await settle();
    expect(texts(feed).map((t) => parseCallNotice(t ?? '')?.outcome ?? null)).toEqual([null, 'missed']);
  });

  it('re-encrypts with the same client id after a 409 for a new Ring key', async () => {
    const server = new FakeServer();
    const keys = fakeKeys(server);
    const feed = feedFor(server, keys);
    await feed.load();
    // The Ring moved to epoch 2 after this tab last read the state: the first envelope is stale.
    keys.ensureSendableEpoch.mockResolvedValueOnce({ epoch: 1 } as unknown as EpochKey);
    server.epoch = 2;
    feed.send('Après rotation');
    await settle();
    expect(server.sends.map((s) => s.content.split('|')[0])).toEqual(['e1', 'e2']);
    const clientIds = new Set(server.sends.map((s) => s.content.split('|')[1]));
    expect(clientIds.size).toBe(1);
    expect(keys.ensureSendableEpoch).toHaveBeenCalledTimes(2);
    expect(server.messages).toHaveLength(1);
    expect(feed.getSnapshot().entries[0]).toMatchObject({ status: 'sent', epoch: 2 });
  });

  it('asks the keys to rotate ahead when a send answer says the epoch nears its limit, and only then', async () => {
    const server = new FakeServer();
    server.rotationSoonAt = [2];
    const keys = fakeKeys(server);
    const feed = feedFor(server, keys);
    await feed.load();
    feed.send('Premier');
    await settle();
    expect(keys.rotateAhead).not.toHaveBeenCalled();
    feed.send('Deuxième');
    await settle();
    expect(keys.rotateAhead).toHaveBeenCalledTimes(1);
    // With the epoch the message went under, so that a late answer cannot rotate the next epoch.
    expect(keys.rotateAhead).toHaveBeenCalledWith(server.epoch);
    expect(feed.getSnapshot().entries.map((e) => e.status)).toEqual(['sent', 'sent']);
  });

  it('re-sends the very same envelope after network failures, and stores one message', async () => {
    const server = new FakeServer();
    const keys = fakeKeys(server);
    const feed = feedFor(server, keys);
    await feed.load();
    server.failNext.push({ status: 0 }, { status: 503 });
    feed.send('Réseau instable');
    await settle();
    expect(server.sends).toHaveLength(3);
    expect(new Set(server.sends.map((s) => s.content)).size).toBe(1);
    expect(keys.encryptText).toHaveBeenCalledTimes(1);
    expect(server.messages).toHaveLength(1);
    expect(feed.getSnapshot().entries[0]!.status).toBe('sent');
  });

  it('marks a refused message failed with the server’s reason; "Réessayer" sends it again', async () => {
    const server = new FakeServer();
    const errors: string[] = [];
    const feed = feedFor(server, fakeKeys(server), { onSendError: (m) => errors.push(m) });
    await feed.load();
    server.failNext.push({ status: 400, message: 'Les messages éphémères ne sont pas activés dans ce Ring' });
    feed.send('Refusé');
    await settle();
    const [entry] = feed.getSnapshot().entries;
    expect(entry).toMatchObject({ status: 'failed', error: errors[0] });
    expect(errors).toEqual(['Les messages éphémères ne sont pas activés dans ce Ring']);
    feed.retry(entry!.key);
    await settle();
    expect(feed.getSnapshot().entries[0]!.status).toBe('sent');
    expect(new Set(server.sends.map((s) => s.content.split('|')[1])).size).toBe(1);
  });

  it('shows a message waiting for its key, then decrypts it when keys change', async () => {
    const server = new FakeServer();
    server.store('bob', 'c1', 'e1|c1|plus tard');
    let ready = false;
    const base = fakeKeys(server);
    const missing = vi.fn();
    const keys = fakeKeys(server, {
      decryptText: async (content: string, conversationId: string) => {
        if (!ready) throw new E2eeError('missing_key', 'epoch 1 key unknown');
        return base.decryptText(content, conversationId);
      },
    });
    const feed = new ConversationFeed({
      conversationId: CONV,
      memberId: 'me',
      username: 'moi',
      api: server.api(),
      keys: () => keys,
      ephemeralSec: () => null,
      onMissingKey: missing,
    });
    await feed.load();
    await settle();
    expect(texts(feed)).toEqual(['waiting']);
    expect(missing).toHaveBeenCalled();
    ready = true;
    feed.retryWaiting();
    await settle();
    expect(texts(feed)).toEqual(['plus tard']);
  });

  it('a message that did not verify is checked again once a key change reaches the log; a forgery stays unverifiable', async () => {
    const server = new FakeServer();
    server.store('lea', 'c1', 'e1|c1|après sa nouvelle clé');
    server.store('mallory', 'c2', 'e1|c2|fausse');
    const base = fakeKeys(server);
    let confirmed = false;
    const keys = fakeKeys(server, {
      decryptText: async (content: string, conversationId: string) => {
        // Léa's new key is not in this tab's log yet; mallory's signature never verifies.
        if (content.includes('fausse') || !confirmed) throw new E2eeError('unverifiable', 'bad signature');
        return base.decryptText(content, conversationId);
      },
    });
    const feed = feedFor(server, keys);
    await feed.load();
    await settle();
    expect(texts(feed)).toEqual(['unverifiable', 'unverifiable']);
    // Waiting messages only: an unverifiable one is not retried by a plain key change.
    confirmed = true;
    feed.retryWaiting();
    await settle();
    expect(texts(feed)).toEqual(['unverifiable', 'unverifiable']);
    feed.retryUnverifiable();
    await settle();
    expect(texts(feed)).toEqual(['après sa nouvelle clé', 'unverifiable']);
  });

  it('drops an expired ephemeral message and its decrypted text, before the server says so', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime(new Date('2026-11-24T10:00:00.000Z'));
    const server = new FakeServer();
    server.store('bob', 'c1', 'e1|c1|éphémère', { isEphemeral: true, expiresAt: '2026-11-24T10:00:10.000Z' });
    server.store('bob', 'c2', 'e1|c2|durable');
    const feed = feedFor(server, fakeKeys(server));
    await feed.load();
    await vi.advanceTimersByTimeAsync(0);
    expect(texts(feed)).toEqual(['éphémère', 'durable']);
    await vi.advanceTimersByTimeAsync(10_100);
    expect(texts(feed)).toEqual(['durable']);
    const snapshot = feed.getSnapshot();
    expect([...snapshot.reads.values()].some((r) => r.state === 'ok' && r.text === 'éphémère')).toBe(false);
    // A late page still carrying it does not bring it back.
    await feed.catchUp();
    const page = await server.api().getMessages({ conversationId: CONV });
    expect(page.messages).toHaveLength(2);
    expect(texts(feed)).toEqual(['durable']);
    // messages_deleted for the rest.
    feed.removeIds(['id-2']);
    expect(feed.getSnapshot().entries).toEqual([]);
  });
  it('counts an ephemeral message down from this reader’s first display, not from its sending, and keeps counting after a reload', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime(new Date('2026-11-24T10:00:00.000Z'));
    const stored = new Map<string, string>();
    vi.stubGlobal('localStorage', {
      getItem: (key: string) => stored.get(key) ?? null,
      setItem: (key: string, value: string) => stored.set(key, value),
    });
    try {
      const server = new FakeServer();
      // Sent at 10:00 with a signed delay of 300 s; the server keeps it up to 7 days unread.
      server.store('bob', 'c1', 'e1|c1|après lecture', {
        isEphemeral: true,
        expiresAt: '2026-12-01T10:00:00.000Z',
      });
      const keys = fakeKeys(server, {
        decryptText: async (content: string) => {
          const [, clientMessageId, text] = content.split('|') as [string, string, string];
          const header = {
            senderId: 'bob',
            clientMessageId,
            sentAt: '2026-11-24T10:00:00.000Z',
            ephemeralSec: 300,
          } as MessageHeader;
          return { header, plaintext: text };
        },
      });
      const receipts: string[][] = [];
      const open = () =>
        new ConversationFeed({
          conversationId: CONV,
          memberId: 'me',
          username: 'moi',
          api: server.api(),
          keys: () => keys,
          ephemeralSec: () => null,
          sendReadReceipts: async (_conversation, ids) => receipts.push(ids),
        });

      // The reader comes back ten minutes later: the message is there, with no countdown yet.
      vi.setSystemTime(new Date('2026-11-24T10:10:00.000Z'));
      const feed = open();
      await feed.load();
      await vi.advanceTimersByTimeAsync(0);
      expect(texts(feed)).toEqual(['après lecture']);
      expect(feed.getSnapshot().hideAt.size).toBe(0);
      // Displayed now: 300 s from now, and the server is told once.
      feed.markDisplayed();
      feed.markDisplayed();
      const key = feed.getSnapshot().entries[0]!.key;
      expect(feed.getSnapshot().hideAt.get(key)).toBe(Date.parse('2026-11-24T10:15:00.000Z'));
      expect(receipts).toEqual([['id-1']]);
      await vi.advanceTimersByTimeAsync(120_000);
      expect(texts(feed)).toEqual(['après lecture']);
      feed.dispose();

      // A reload two minutes later keeps counting from the first display.
      const again = open();
      await again.load();
      await vi.advanceTimersByTimeAsync(0);
      again.markDisplayed();
      expect(again.getSnapshot().hideAt.get(key)).toBe(Date.parse('2026-11-24T10:15:00.000Z'));
      await vi.advanceTimersByTimeAsync(180_100);
      expect(texts(again)).toEqual([]);
      // Still served (others have not read it): not shown again.
      await again.catchUp();
      expect(texts(again)).toEqual([]);
      again.dispose();
      const third = open();
      await third.load();
      expect(third.getSnapshot().entries).toEqual([]);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('signs the Ring’s delay into an own message, counts it down from the first reading by anyone, and re-signs after a setting change', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime(new Date('2026-11-24T10:00:00.000Z'));
    const server = new FakeServer();
    server.failNext.push({ status: 409, code: 'ephemeral_changed', ephemeralSec: 60 } as never);
    const delays: Array<number | null | undefined> = [];
    const base = fakeKeys(server);
    const keys = fakeKeys(server, {
      encryptText: async (conversationId, text, key, clientMessageId, ephemeralSec) => {
        delays.push(ephemeralSec);
        const sealed = await base.encryptText(conversationId, text, key, clientMessageId);
        const signed = { sentAt: '2026-11-24T10:00:00.000Z', ...(ephemeralSec ? { ephemeralSec } : {}) };
        return { ...sealed, header: { ...sealed.header, ...signed } };
      },
    });
    const feed = new ConversationFeed({
      conversationId: CONV,
      memberId: 'me',
      username: 'moi',
      api: server.api(),
      keys: () => keys,
      ephemeralSec: () => 300,
      sleep: () => Promise.resolve(),
    });
    await feed.load();
    feed.send('à lire');
    await vi.advanceTimersByTimeAsync(0);
    // Refused once for the old setting: encrypted again with the Ring's 60 s.
    expect(delays).toEqual([300, 60]);
    expect(server.sends.map((body) => body.isEphemeral)).toEqual([true, true]);
    const [entry] = feed.getSnapshot().entries;
    expect(entry).toMatchObject({ id: 'id-1', status: 'sent' });
    // No countdown until someone reads it; then from that first reading.
    expect(feed.getSnapshot().hideAt.size).toBe(0);
    feed.firstRead('id-1', '2026-11-24T10:05:00.000Z');
    expect(feed.getSnapshot().hideAt.get(entry!.key)).toBe(Date.parse('2026-11-24T10:06:00.000Z'));
  });
});
