import { describe, expect, it } from 'vitest';
import {
  CHAIN_START_HASH,
  type MessageChain,
  type MessageHeader,
  decryptMessage,
  encryptMessage,
  messageHash,
  parseEnvelope,
} from './envelope';
import { generateEpochKey } from './epoch-keys';
import { generateIdentity } from './identity';
import { type ChainedMessage, checkMessageChains } from './message-chain';

const WHERE = { ringId: 'ring-1', conversationId: 'room:general' };

/** A sender signing real v2 envelopes, and a reader that verifies them into ChainedMessages. */
async function scenario() {
  const alice = await generateIdentity();
  const key = await generateEpochKey({ ringId: WHERE.ringId, epoch: 1, level: 'standard' });
  const state = new Map<string, { counter: number; hash: string; lastPermanent: number }>();
  let id = 0;
  /** Alice's browser `stream` sends a message (`ephemeralSec`: undefined = permanent). */
  async function send(stream = 'tab-a', ephemeralSec?: number, override?: Partial<MessageChain>) {
    const last = state.get(stream) ?? { counter: 0, hash: CHAIN_START_HASH, lastPermanent: 0 };
    const chain: MessageChain = {
      stream,
      counter: last.counter + 1,
      prevHash: last.hash,
      lastPermanent: last.lastPermanent,
      ...override,
    };
    const header: MessageHeader = {
      v: 2,
      ...WHERE,
      epoch: 1,
      senderId: 'alice',
      clientMessageId: `m-${++id}`,
      sentAt: '2026-11-29T10:00:00.000Z',
      chain,
      ...(ephemeralSec !== undefined ? { ephemeralSec } : {}),
    };
    const content = await encryptMessage(header, `message ${id}`, key, alice.signing.privateKey);
    const read = await verify(content);
    state.set(stream, {
      counter: chain.counter,
      hash: read.hash,
      lastPermanent: ephemeralSec === undefined ? chain.counter : chain.lastPermanent,
    });
    return { content, read };
  }
  async function verify(content: string): Promise<ChainedMessage> {
    const { header } = await decryptMessage(content, WHERE, {
      epochKey: () => key,
      senderVerifyKey: () => alice.signing.publicKey,
    });
    return {
      key: `${header.senderId}:${header.clientMessageId}`,
      senderId: header.senderId,
      chain: header.chain!,
      permanent: header.ephemeralSec === undefined,
      hash: await messageHash(parseEnvelope(content)),
    };
  }
  return { send, verify };
}

const kinds = (result: ReturnType<typeof checkMessageChains>) =>
  result.breaks.map((b) => `${b.kind}@${b.before}`);

describe('sender sequences (issue 27 M4)', () => {
  it('an unbroken sequence, across two browsers of the same member, shows nothing', async () => {
    const { send } = await scenario();
    const held = [];
    for (const stream of ['tab-a', 'tab-b', 'tab-a', 'tab-a', 'tab-b']) held.push((await send(stream)).read);
    expect(checkMessageChains(held)).toEqual({ breaks: [], duplicates: [] });
  });

  it('the server drops a message: « Message manquant » before the next one', async () => {
    const { send } = await scenario();
    const m1 = (await send()).read;
    await send(); // dropped by the server
    const m3 = (await send()).read;
    expect(kinds(checkMessageChains([m1, m3]))).toEqual(['gap@alice:m-3']);
    // Two dropped, then the tail: one line where the sequence jumps.
    const m4 = (await send()).read;
    expect(kinds(checkMessageChains([m1, m4]))).toEqual(['gap@alice:m-4']);
  });

  it('expired ephemeral messages may vanish; a permanent one among them may not', async () => {
    const { send } = await scenario();
    const m1 = (await send()).read;
    await send('tab-a', 30); // ephemeral, expired and deleted
    await send('tab-a', 30);
    const m4 = (await send()).read;
    expect(checkMessageChains([m1, m4]).breaks).toEqual([]);
    await send(); // permanent, deleted by the server without a signed deletion
    await send('tab-a', 30);
    const m7 = (await send()).read;
    expect(kinds(checkMessageChains([m1, m4, m7]))).toEqual(['gap@alice:m-7']);
  });

  it('the server reorders messages: no false alarm (the signed numbers give the order)', async () => {
    const { send } = await scenario();
    const held = [];
    for (let i = 0; i < 4; i++) held.push((await send()).read);
    const shuffled = [held[2]!, held[0]!, held[3]!, held[1]!];
    expect(checkMessageChains(shuffled)).toEqual({ breaks: [], duplicates: [] });
  });

  it('the server replays an old message: the copy is refused as a duplicate', async () => {
    const { send, verify } = await scenario();
    const m1 = await send();
    const m2 = (await send()).read;
    const replay = { ...(await verify(m1.content)), key: 'replayed-copy' };
    expect(checkMessageChains([m1.read, m2, replay])).toEqual({ breaks: [], duplicates: ['replayed-copy'] });
  });

  it('a sender that signs two histories (same number, another message, or a wrong link) is a fork', async () => {
    const { send } = await scenario();
    const m1 = (await send()).read;
    const m2 = (await send()).read;
    // Same number as m2, another message.
    const twin = (await send('tab-a', undefined, { counter: 2, prevHash: m1.hash, lastPermanent: 1 })).read;
    expect(kinds(checkMessageChains([m1, m2, twin]))).toEqual(['fork@alice:m-3']);
    // A link to something else than the message held before it.
    const { send: sendOther } = await scenario();
    const o1 = (await sendOther()).read;
    const o2 = (await sendOther('tab-a', undefined, { prevHash: 'ab'.repeat(32) })).read;
    expect(kinds(checkMessageChains([o1, o2]))).toEqual(['fork@alice:m-2']);
    // Claims no permanent message since the start while the one held is permanent.
    const { send: sendThird } = await scenario();
    const t1 = (await sendThird()).read;
    await sendThird('tab-a', 30);
    const t3 = (await sendThird('tab-a', undefined, { lastPermanent: 0 })).read;
    expect(kinds(checkMessageChains([t1, t3]))).toEqual(['fork@alice:m-3']);
  });

  it('does not judge a stream’s first held message against what the reader never had', async () => {
    const { send } = await scenario();
    for (let i = 0; i < 3; i++) await send();
    const m4 = (await send()).read;
    const m5 = (await send()).read;
    expect(checkMessageChains([m4, m5]).breaks).toEqual([]);
  });
});
