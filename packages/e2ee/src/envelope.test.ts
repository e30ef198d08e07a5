import { describe, expect, it } from 'vitest';
import { fromBase64 } from './encoding';
import {
  MAX_ENVELOPE_CIPHERTEXT_BYTES,
  MAX_MESSAGE_BYTES,
  type MessageHeader,
  type MessageKeyLookups,
  type WireEnvelope,
  decryptMessage,
  encryptMessage,
  messageHash,
  parseEnvelope,
  readEnvelopeHeader,
} from './envelope';
import { type EpochKey, generateEpochKey } from './epoch-keys';
import { generateIdentity } from './identity';
import { SECURITY_LEVELS, type SecurityLevel } from './levels';
import { expectCode, expectThrowsCode, flipBase64 } from './test-support';

const WHERE = { ringId: 'ring-1', conversationId: 'room:general' };

function header(overrides: Partial<MessageHeader> = {}): MessageHeader {
  return {
    v: 1,
    ...WHERE,
    epoch: 1,
    senderId: 'alice',
    clientMessageId: 'c-0001',
    sentAt: '2026-11-24T10:00:00.000Z',
    ...overrides,
  };
}

async function setup(level: SecurityLevel = 'standard') {
  const alice = await generateIdentity();
  const bob = await generateIdentity();
  const key = await generateEpochKey({ ringId: WHERE.ringId, epoch: 1, level });
  const lookups: MessageKeyLookups = {
    epochKey: (epoch) => (epoch === 1 ? key : undefined),
    senderVerifyKey: async (id) => ({ alice: alice.signing.publicKey, bob: bob.signing.publicKey })[id],
  };
  return { alice, bob, key, lookups };
}

function rewrite(text: string, change: (wire: WireEnvelope) => void): string {
  const wire = JSON.parse(text) as WireEnvelope;
  change(wire);
  return JSON.stringify(wire);
}

describe('message envelope', () => {
  it.each(SECURITY_LEVELS)('level %s: encrypts, signs and round-trips', async (level) => {
    const { alice, key, lookups } = await setup(level);
    for (const text of ['Bonjour 👋 à tous', '', 'x'.repeat(5000)]) {
      const envelope = await encryptMessage(header(), text, key, alice.signing.privateKey);
      expect(envelope).not.toContain('Bonjour');
      const opened = await decryptMessage(envelope, WHERE, lookups);
      expect(opened).toEqual({ header: header(), plaintext: text });
    }
  });

  it('exposes the header to a server without keys, in a strict compact JSON shape', async () => {
    const { alice, key } = await setup();
    const envelope = await encryptMessage(header(), 'secret', key, alice.signing.privateKey);
    expect(Object.keys(JSON.parse(envelope))).toEqual(['v', 'r', 'c', 'e', 's', 'm', 't', 'iv', 'ct', 'sig']);
    const parsed = parseEnvelope(envelope);
    expect(parsed.header).toEqual(header());
    expect(parsed.iv).toHaveLength(12);
    expect(parsed.ciphertext).toHaveLength(6 + 16);
    expect(parsed.signature).toHaveLength(64);
    const bad = [
      'hello',
      '{}',
      '[]',
      'null',
      rewrite(envelope, (w) => Object.assign(w, { extra: 1 })),
      rewrite(envelope, (w) => Object.assign(w, { v: 2 })),
      rewrite(envelope, (w) => Object.assign(w, { e: '1' })),
      rewrite(envelope, (w) => Object.assign(w, { t: 'hier' })),
      rewrite(envelope, (w) => Object.assign(w, { s: '' })),
      rewrite(envelope, (w) => Object.assign(w, { iv: w.iv.slice(4) })),
      rewrite(envelope, (w) => Object.assign(w, { ct: '' })),
      'x'.repeat(100_000),
    ];
    for (const text of bad) expectThrowsCode(() => parseEnvelope(text), 'invalid_format');
    // What a server reads: the same header, the same refusals (the binary fields' base64 and sizes
    // included), without decoding them.
    expect(readEnvelopeHeader(envelope)).toEqual(header());
    const badBinary = [
      rewrite(envelope, (w) => Object.assign(w, { iv: `${w.iv.slice(0, -2)}A=` })),
      rewrite(envelope, (w) => Object.assign(w, { ct: `${w.ct} ` })),
      rewrite(envelope, (w) => Object.assign(w, { ct: w.ct.slice(0, 20) })),
      rewrite(envelope, (w) => Object.assign(w, { sig: w.sig.slice(4) })),
      rewrite(envelope, (w) => Object.assign(w, { sig: 7 })),
    ];
    for (const text of badBinary) expectThrowsCode(() => parseEnvelope(text), 'invalid_format');
    for (const text of [...bad, ...badBinary])
      expectThrowsCode(() => readEnvelopeHeader(text), 'invalid_format');
  });

  it('rejects every altered field, the signature and the ciphertext', async () => {
    const { alice, key, lookups } = await setup();
    const envelope = await encryptMessage(header(), 'payer 100 €', key, alice.signing.privateKey);
    const altered: [WireEnvelope | string, { ringId: string; conversationId: string }?][] = [
      [rewrite(envelope, (w) => (w.iv = flipBase64(w.iv, 0)))],
      [rewrite(envelope, (w) => (w.ct = flipBase64(w.ct, 3)))],
      [rewrite(envelope, (w) => (w.ct = flipBase64(w.ct, -1)))],
      [rewrite(envelope, (w) => (w.sig = flipBase64(w.sig, 63)))],
      [rewrite(envelope, (w) => (w.m = 'c-0002'))],
      [rewrite(envelope, (w) => (w.t = '2026-11-24T10:00:01.000Z'))],
      [rewrite(envelope, (w) => (w.s = 'bob'))],
      [rewrite(envelope, (w) => (w.c = 'dm:alice:bob')), { ...WHERE, conversationId: 'dm:alice:bob' }],
      [
        rewrite(envelope, (w) => (w.r = 'ring-2')),
        { ringId: 'ring-2', conversationId: WHERE.conversationId },
      ],
    ];
    for (const [text, where = WHERE] of altered) {
      await expectCode(decryptMessage(text as string, where, lookups), 'unverifiable');
    }
    // Epoch changed to one whose key the reader holds: the header no longer matches its key.
    const epoch2 = await generateEpochKey({ ringId: WHERE.ringId, epoch: 2, level: 'standard' });
    await expectCode(
      decryptMessage(
        rewrite(envelope, (w) => (w.e = 2)),
        WHERE,
        { ...lookups, epochKey: () => epoch2 },
      ),
      'unverifiable',
    );
    await expect(decryptMessage(envelope, WHERE, lookups)).resolves.toMatchObject({
      plaintext: 'payer 100 €',
    });
  });

  it('binds the membership log head the sender verified: signed, both fields or neither, well formed', async () => {
    const { alice, key, lookups } = await setup();
    const logHead = { logSeq: 7, logHash: 'ab'.repeat(32) };
    const envelope = await encryptMessage(header(logHead), 'avec le journal', key, alice.signing.privateKey);
    expect(JSON.parse(envelope)).toMatchObject({ l: 7, h: 'ab'.repeat(32) });
    expect(await decryptMessage(envelope, WHERE, lookups)).toEqual({
      header: header(logHead),
      plaintext: 'avec le journal',
    });
    // The server cannot move it to another log head, nor drop the head (the signature covers it).
    for (const change of [
      (w: WireEnvelope) => (w.l = 8),
      (w: WireEnvelope) => (w.h = 'cd'.repeat(32)),
      (w: WireEnvelope) => {
        delete w.l;
        delete w.h;
      },
    ])
      await expectCode(decryptMessage(rewrite(envelope, change), WHERE, lookups), 'unverifiable');
    for (const change of [
      (w: WireEnvelope) => delete w.h,
      (w: WireEnvelope) => (w.h = 'AB'.repeat(32)),
      (w: WireEnvelope) => (w.l = -1),
    ])
      expectThrowsCode(() => parseEnvelope(rewrite(envelope, change)), 'invalid_format');
    // A message from before the log keeps its shape and still opens.
    const legacy = await encryptMessage(header(), 'avant le journal', key, alice.signing.privateKey);
    expect(Object.keys(JSON.parse(legacy))).not.toContain('l');
    expect((await decryptMessage(legacy, WHERE, lookups)).plaintext).toBe('avant le journal');
  });

  it('signs the ephemeral delay: the server can neither add, drop nor change it', async () => {
    const { alice, key, lookups } = await setup();
    const envelope = await encryptMessage(
      header({ ephemeralSec: 300 }),
      'lu puis effacé',
      key,
      alice.signing.privateKey,
    );
    expect(JSON.parse(envelope)).toMatchObject({ x: 300 });
    expect(parseEnvelope(envelope).header.ephemeralSec).toBe(300);
    expect(await decryptMessage(envelope, WHERE, lookups)).toEqual({
      header: header({ ephemeralSec: 300 }),
      plaintext: 'lu puis effacé',
    });
    for (const change of [(w: WireEnvelope) => (w.x = 30), (w: WireEnvelope) => delete w.x])
      await expectCode(decryptMessage(rewrite(envelope, change), WHERE, lookups), 'unverifiable');
    // A permanent message cannot be made ephemeral.
    const permanent = await encryptMessage(header(), 'pour toujours', key, alice.signing.privateKey);
    await expectCode(
      decryptMessage(
        rewrite(permanent, (w) => (w.x = 10)),
        WHERE,
        lookups,
      ),
      'unverifiable',
    );
    // With the log head too, and only a whole number of seconds up to 7 days.
    const both = await encryptMessage(
      header({ ephemeralSec: 10, logSeq: 3, logHash: 'ab'.repeat(32) }),
      'les deux',
      key,
      alice.signing.privateKey,
    );
    expect((await decryptMessage(both, WHERE, lookups)).header).toMatchObject({
      ephemeralSec: 10,
      logSeq: 3,
    });
    for (const x of [0, -1, 1.5, 604_801, '300'])
      expectThrowsCode(
        () => parseEnvelope(rewrite(envelope, (w) => Object.assign(w, { x }))),
        'invalid_format',
      );
  });

  it('cannot be moved to another conversation or Ring', async () => {
    const { alice, key, lookups } = await setup();
    const envelope = await encryptMessage(header(), 'only here', key, alice.signing.privateKey);
    await expectCode(decryptMessage(envelope, { ...WHERE, conversationId: 'dm:x' }, lookups), 'unverifiable');
    await expectCode(decryptMessage(envelope, { ...WHERE, ringId: 'ring-2' }, lookups), 'unverifiable');
  });

  it('reports missing keys so the UI can wait for them', async () => {
    const { alice, key, lookups } = await setup();
    const envelope = await encryptMessage(header(), 'hi', key, alice.signing.privateKey);
    await expectCode(
      decryptMessage(envelope, WHERE, { ...lookups, epochKey: () => undefined }),
      'missing_key',
    );
    await expectCode(
      decryptMessage(envelope, WHERE, { ...lookups, senderVerifyKey: () => undefined }),
      'missing_key',
    );
  });

  it('cannot be forged by another member holding the epoch key', async () => {
    const { bob, key, lookups } = await setup();
    // Bob has the epoch key but signs with his own key while claiming to be Alice.
    const forged = await encryptMessage(
      header({ senderId: 'alice' }),
      'from alice?',
      key,
      bob.signing.privateKey,
    );
    await expectCode(decryptMessage(forged, WHERE, lookups), 'unverifiable');
    const honest = await encryptMessage(header({ senderId: 'bob' }), 'from bob', key, bob.signing.privateKey);
    await expect(decryptMessage(honest, WHERE, lookups)).resolves.toMatchObject({ plaintext: 'from bob' });
  });

  it('refuses anything that is not an envelope as unverifiable', async () => {
    const { lookups } = await setup();
    for (const text of ['plain text', '{"content":"x"}', 'AAECAwQ=', '']) {
      await expectCode(decryptMessage(text, WHERE, lookups), 'unverifiable');
    }
  });

  it('military: two layers, and each layer key matters', async () => {
    const { alice, key, lookups } = await setup('military');
    const standard = await setup('standard');
    const envelope = await encryptMessage(header(), 'double', key, alice.signing.privateKey);
    const single = await encryptMessage(header(), 'double', standard.key, standard.alice.signing.privateKey);
    // The outer layer carries the inner IV and tag.
    expect(parseEnvelope(envelope).ciphertext.length - parseEnvelope(single).ciphertext.length).toBe(12 + 16);
    const other = await generateEpochKey({ ringId: WHERE.ringId, epoch: 1, level: 'military' });
    const swapped: EpochKey[] = [
      { ...key, innerKey: other.innerKey },
      { ...key, messageKey: other.messageKey },
      { ...key, innerKey: undefined },
    ];
    for (const wrong of swapped) {
      await expectCode(
        decryptMessage(envelope, WHERE, { ...lookups, epochKey: () => wrong }),
        'unverifiable',
      );
    }
    await expect(decryptMessage(envelope, WHERE, lookups)).resolves.toMatchObject({ plaintext: 'double' });
  });

  it('bounds the message size to 64 KiB of ciphertext at every level', async () => {
    for (const level of ['basic', 'military'] as const) {
      const { alice, key, lookups } = await setup(level);
      const largest = 'é'.repeat(MAX_MESSAGE_BYTES / 2);
      const envelope = await encryptMessage(header(), largest, key, alice.signing.privateKey);
      expect(parseEnvelope(envelope).ciphertext.length).toBeLessThanOrEqual(MAX_ENVELOPE_CIPHERTEXT_BYTES);
      await expect(decryptMessage(envelope, WHERE, lookups)).resolves.toMatchObject({ plaintext: largest });
      await expectCode(encryptMessage(header(), `${largest}x`, key, alice.signing.privateKey), 'too_large');
    }
    const { alice, key } = await setup();
    const tooBig = rewrite(await encryptMessage(header(), 'x', key, alice.signing.privateKey), (w) => {
      w.ct = btoa('x'.repeat(MAX_ENVELOPE_CIPHERTEXT_BYTES + 3));
    });
    expectThrowsCode(() => parseEnvelope(tooBig), 'invalid_format');
    expect(fromBase64(JSON.parse(tooBig).ct).length).toBeGreaterThan(MAX_ENVELOPE_CIPHERTEXT_BYTES);
  });

  it('refuses to encrypt with a key of another epoch or Ring, or a malformed header', async () => {
    const { alice, key } = await setup();
    const sign = alice.signing.privateKey;
    await expectCode(encryptMessage(header({ epoch: 2 }), 'x', key, sign), 'invalid_format');
    await expectCode(encryptMessage(header({ ringId: 'ring-2' }), 'x', key, sign), 'invalid_format');
    await expectCode(encryptMessage(header({ sentAt: '24/11/2026' }), 'x', key, sign), 'invalid_format');
    await expectCode(encryptMessage(header({ conversationId: 'a b' }), 'x', key, sign), 'invalid_format');
  });
});

describe('message envelope v2: signed sequence and lifetime (issue 27 M4)', () => {
  const chain = { stream: 'browser-1', counter: 2, prevHash: 'ab'.repeat(32), lastPermanent: 1 };
  const v2 = (overrides: Partial<MessageHeader> = {}) => header({ v: 2, chain, ...overrides });

  it('signs the counter, the previous hash, the last permanent counter and the lifetime (0: permanent)', async () => {
    const { alice, key, lookups } = await setup();
    const envelope = await encryptMessage(v2(), 'suite', key, alice.signing.privateKey);
    expect(JSON.parse(envelope)).toMatchObject({
      v: 2,
      x: 0,
      d: 'browser-1',
      n: 2,
      p: 'ab'.repeat(32),
      k: 1,
    });
    expect(parseEnvelope(envelope).header).toEqual(v2());
    expect(await decryptMessage(envelope, WHERE, lookups)).toEqual({ header: v2(), plaintext: 'suite' });
    const changes: ((w: WireEnvelope) => void)[] = [
      (w) => (w.n = 3),
      (w) => (w.p = 'cd'.repeat(32)),
      (w) => (w.k = 0),
      (w) => (w.d = 'browser-2'),
      // The server cannot make a signed permanent message ephemeral, nor expire it sooner.
      (w) => (w.x = 30),
      // Nor pass it off as a legacy message without the sequence.
      (w) => {
        w.v = 1;
        delete w.d;
        delete w.n;
        delete w.p;
        delete w.k;
        delete w.x;
      },
    ];
    for (const change of changes)
      await expectCode(decryptMessage(rewrite(envelope, change), WHERE, lookups), 'unverifiable');
    const ephemeral = await encryptMessage(
      v2({ ephemeralSec: 60 }),
      'éphémère',
      key,
      alice.signing.privateKey,
    );
    expect(JSON.parse(ephemeral)).toMatchObject({ x: 60 });
    expect((await decryptMessage(ephemeral, WHERE, lookups)).header.ephemeralSec).toBe(60);
    await expectCode(
      decryptMessage(
        rewrite(ephemeral, (w) => (w.x = 0)),
        WHERE,
        lookups,
      ),
      'unverifiable',
    );
  });

  it('refuses malformed sequences', async () => {
    const { alice, key } = await setup();
    const envelope = await encryptMessage(v2(), 'x', key, alice.signing.privateKey);
    const bad: ((w: WireEnvelope) => void)[] = [
      (w) => delete w.x,
      (w) => delete w.n,
      (w) => (w.n = 0),
      (w) => (w.n = 1.5),
      (w) => (w.k = 2),
      (w) => (w.p = 'AB'.repeat(32)),
      // Counter 1 links to nothing, any other counter to a hash.
      (w) => (w.p = '0'.repeat(64)),
      (w) => Object.assign(w, { n: 1, k: 0 }),
      (w) => Object.assign(w, { d: '' }),
      (w) => Object.assign(w, { x: '0' }),
      (w) => Object.assign(w, { v: 3 }),
    ];
    for (const change of bad)
      expectThrowsCode(() => parseEnvelope(rewrite(envelope, change)), 'invalid_format');
    await expectCode(
      encryptMessage(header({ v: 2 }), 'sans séquence', key, alice.signing.privateKey),
      'invalid_format',
    );
    await expectCode(
      encryptMessage(header({ chain }), 'v1 avec séquence', key, alice.signing.privateKey),
      'invalid_format',
    );
    const first = { stream: 's', counter: 1, prevHash: '0'.repeat(64), lastPermanent: 0 };
    expect(
      parseEnvelope(await encryptMessage(v2({ chain: first }), 'premier', key, alice.signing.privateKey))
        .header.chain,
    ).toEqual(first);
  });

  it('hashes a message the same whatever its JSON spacing, and differently for any other message', async () => {
    const { alice, key } = await setup();
    const envelope = await encryptMessage(v2(), 'haché', key, alice.signing.privateKey);
    const hash = await messageHash(parseEnvelope(envelope));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await messageHash(parseEnvelope(JSON.stringify(JSON.parse(envelope), null, 2)))).toBe(hash);
    const again = await encryptMessage(v2(), 'haché', key, alice.signing.privateKey);
    expect(await messageHash(parseEnvelope(again))).not.toBe(hash);
  });

  it('still opens legacy v1 messages, which carry no sequence', async () => {
    const { alice, key, lookups } = await setup();
    const legacy = await encryptMessage(header(), 'ancien', key, alice.signing.privateKey);
    const opened = await decryptMessage(legacy, WHERE, lookups);
    expect(opened.header.v).toBe(1);
    expect(opened.header.chain).toBeUndefined();
  });
});
