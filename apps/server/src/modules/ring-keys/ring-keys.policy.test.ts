import { E2EE_MESSAGES } from '@securering/contract';
import type { EpochKeyShare, EpochKeyShareV2 } from '@securering/e2ee';
import { describe, expect, it } from 'vitest';
import {
  checkRotation,
  checkShares,
  decideKeySave,
  firstReadableEpoch,
  isRotationDue,
  isRotationSoon,
  mayReadEpoch,
  NOTHING_READABLE,
  neededEpochs,
  pickKeyHolders,
  type RingEpochState,
  type RotationRequest,
  type ShareContext,
} from './ring-keys.policy';

const NOW = new Date('2026-11-24T10:00:00.000Z');
const DAY = 86_400_000;

const ring = (overrides: Partial<RingEpochState> = {}): RingEpochState => ({
  current_epoch: 3,
  epoch_created_at: new Date(NOW.getTime() - DAY).toISOString(),
  epoch_message_count: 10,
  rotation_due: 0,
  encryption_level: 'standard',
  ...overrides,
});

const HEAD = { seq: 7, hash: 'a'.repeat(64) };

/** A version 2 share bound to the log head HEAD (what a browser sends now). */
const share = (overrides: Partial<EpochKeyShareV2> = {}): EpochKeyShare => ({
  v: 2,
  ringId: 'ring',
  epoch: 4,
  level: 'standard',
  recipientMemberId: 'alice',
  senderMemberId: 'alice',
  enc: 'e',
  ct: 'c',
  sig: 's',
  logSeq: HEAD.seq,
  logHash: HEAD.hash,
  epochLogSeq: HEAD.seq,
  ...overrides,
});

describe('isRotationDue', () => {
  it('is not due for a recent epoch with few messages at the Ring’s level', () => {
    expect(isRotationDue(ring(), 'standard', NOW)).toBe(false);
  });

  it('is due before the first epoch, after a membership change, or when the level changed', () => {
    expect(isRotationDue(ring({ current_epoch: 0, epoch_created_at: null }), undefined, NOW)).toBe(true);
    expect(isRotationDue(ring({ rotation_due: 1 }), 'standard', NOW)).toBe(true);
    expect(isRotationDue(ring({ encryption_level: 'military' }), 'standard', NOW)).toBe(true);
  });

  it('is due after 7 days, and after 1,000 messages (100 at high and military)', () => {
    const week = new Date(NOW.getTime() - 7 * DAY).toISOString();
    expect(isRotationDue(ring({ epoch_created_at: week }), 'standard', NOW)).toBe(true);
    const almostWeek = new Date(NOW.getTime() - 7 * DAY + 1).toISOString();
    expect(isRotationDue(ring({ epoch_created_at: almostWeek }), 'standard', NOW)).toBe(false);
    expect(isRotationDue(ring({ epoch_message_count: 999 }), 'standard', NOW)).toBe(false);
    expect(isRotationDue(ring({ epoch_message_count: 1000 }), 'standard', NOW)).toBe(true);
    const high = ring({ encryption_level: 'high', epoch_message_count: 100 });
    expect(isRotationDue(high, 'high', NOW)).toBe(true);
    expect(isRotationDue({ ...high, epoch_message_count: 99 }, 'high', NOW)).toBe(false);
  });
});

describe('readable epochs', () => {
  it('starts at the first readable epoch the member’s admission set (0 when the history was shared)', () => {
    expect(firstReadableEpoch({ first_readable_epoch: 5, admitted_seq: 3 })).toBe(5);
    expect(mayReadEpoch({ first_readable_epoch: 5, admitted_seq: 3 }, 4)).toBe(false);
    expect(mayReadEpoch({ first_readable_epoch: 5, admitted_seq: 3 }, 5)).toBe(true);
    expect(mayReadEpoch({ first_readable_epoch: 0, admitted_seq: 3 }, 1)).toBe(true);
  });

  it('gives a member nobody admitted nothing to read, whatever its first readable epoch says', () => {
    expect(firstReadableEpoch({ first_readable_epoch: 0, admitted_seq: null })).toBe(NOTHING_READABLE);
    expect(mayReadEpoch({ first_readable_epoch: 0, admitted_seq: null }, 1_000_000)).toBe(false);
    // Deactivated in the log, reactivated in the customer space only: still nothing.
    expect(firstReadableEpoch({ first_readable_epoch: 4, admitted_seq: 2, log_deactivated: 1 })).toBe(
      NOTHING_READABLE,
    );
    expect(firstReadableEpoch({ first_readable_epoch: 4, admitted_seq: 2, log_deactivated: 0 })).toBe(4);
  });

  it('lists the readable epochs a member lacks', () => {
    expect(neededEpochs([1, 2, 3, 4], new Set([3]), 2)).toEqual([2, 4]);
    expect(neededEpochs([1, 2], new Set([1, 2]), 0)).toEqual([]);
  });
});

describe('decideKeySave', () => {
  const keys = { x25519: 'X', ed25519: 'E' };
  const stored = { public_x25519: 'X', public_ed25519: 'E', key_version: 2 };

  it('publishes when nothing valid is stored', () => {
    expect(decideKeySave(undefined, keys, false)).toEqual({ ok: true, decision: { kind: 'publish' } });
    expect(decideKeySave({ ...stored, key_version: 0 }, keys, false)).toMatchObject({
      decision: { kind: 'publish' },
    });
  });

  it('upgrades the record with the same public keys, reset or not', () => {
    expect(decideKeySave(stored, keys, false)).toMatchObject({ decision: { kind: 'upgrade' } });
    expect(decideKeySave(stored, keys, true)).toMatchObject({ decision: { kind: 'upgrade' } });
  });

  it('needs an explicit reset for new public keys', () => {
    expect(decideKeySave(stored, { x25519: 'Y', ed25519: 'E' }, false)).toEqual({
      ok: false,
      status: 409,
      error: E2EE_MESSAGES.keysAlreadyPublished,
    });
    expect(decideKeySave(stored, { x25519: 'Y', ed25519: 'F' }, true)).toMatchObject({
      decision: { kind: 'reset' },
    });
  });
});

describe('checkRotation', () => {
  const members = [
    { id: 'alice', key_version: 1 },
    { id: 'bob', key_version: 2 },
    { id: 'carol', key_version: 1 },
  ];
  const request = (overrides: Partial<RotationRequest> = {}): RotationRequest => ({
    ringId: 'ring',
    callerId: 'alice',
    epoch: 4,
    level: 'standard',
    shares: ['alice', 'bob', 'carol'].map((id) => share({ recipientMemberId: id })),
    withheld: [],
    keyVersions: { alice: 1, bob: 2, carol: 1 },
    logHead: HEAD,
    ...overrides,
  });

  it('accepts exactly one share per admitted member with the log’s keys, at their key versions', () => {
    expect(checkRotation(request(), members)).toEqual({ ok: true });
  });

  it('withholds only members who cannot receive the key, never one who can, nor the caller (M2)', () => {
    // Dave's key change is not confirmed in the log: he is outside the keyed set, and may be named.
    const dave = request({ withheld: ['dave'] });
    expect(checkRotation(dave, members)).toEqual({ ok: true });
    // Carol can receive the key: withholding her would cut her off (a member bricking the Ring).
    const withheld = request({
      shares: ['alice', 'bob'].map((id) => share({ recipientMemberId: id })),
      withheld: ['carol'],
    });
    expect(checkRotation(withheld, members)).toMatchObject({ status: 409, code: 'members_changed' });
    expect(checkRotation(request({ withheld: ['alice'] }), members)).toMatchObject({ status: 400 });
    // A member both withheld and given a share is contradictory.
    expect(checkRotation(request({ withheld: ['bob'] }), members)).toMatchObject({ status: 400 });
  });

  it('refuses shares not bound to the log head: version 1, another seq, hash or creation point', () => {
    const v1 = { ...share({ recipientMemberId: 'bob' }), v: 1 } as unknown as EpochKeyShare;
    for (const odd of [
      v1,
      share({ recipientMemberId: 'bob', logSeq: 6 }),
      share({ recipientMemberId: 'bob', logHash: 'b'.repeat(64) }),
      share({ recipientMemberId: 'bob', epochLogSeq: 6 }),
    ])
      expect(
        checkRotation(request({ shares: [share(), odd, share({ recipientMemberId: 'carol' })] }), members),
      ).toMatchObject({ status: 400, error: E2EE_MESSAGES.shareInvalid });
  });

  it('refuses shares for another Ring, epoch, level or sender, and duplicates', () => {
    const bad = (changes: Partial<EpochKeyShareV2>) =>
      request({
        shares: [
          share({ recipientMemberId: 'alice' }),
          share({ recipientMemberId: 'bob', ...changes }),
          share({ recipientMemberId: 'carol' }),
        ],
      });
    for (const changes of [
      { ringId: 'other' },
      { epoch: 5 },
      { level: 'high' as const },
      { senderMemberId: 'bob' },
      { recipientMemberId: 'alice' },
    ])
      expect(checkRotation(bad(changes), members), JSON.stringify(changes)).toEqual({
        ok: false,
        status: 400,
        error: E2EE_MESSAGES.shareInvalid,
      });
  });

  it('needs the caller’s own share', () => {
    const withoutMe = request({
      shares: ['bob', 'carol'].map((id) => share({ recipientMemberId: id })),
      withheld: [],
    });
    expect(checkRotation(withoutMe, members)).toMatchObject({
      status: 400,
      error: E2EE_MESSAGES.rotationIncomplete,
    });
  });

  it('answers members_changed for a missing member, an unknown one, or a stale key version', () => {
    const missing = request({ shares: ['alice', 'bob'].map((id) => share({ recipientMemberId: id })) });
    expect(checkRotation(missing, members)).toMatchObject({ status: 409, code: 'members_changed' });
    const extra = request({
      shares: ['alice', 'bob', 'carol', 'dave'].map((id) => share({ recipientMemberId: id })),
      keyVersions: { alice: 1, bob: 2, carol: 1, dave: 1 },
    });
    expect(checkRotation(extra, members)).toMatchObject({ status: 409, code: 'members_changed' });
    expect(checkRotation(request({ keyVersions: { alice: 1, bob: 1, carol: 1 } }), members)).toMatchObject({
      status: 409,
      code: 'members_changed',
      error: E2EE_MESSAGES.membersChanged,
    });
  });
});

describe('checkShares', () => {
  const context = (overrides: Partial<ShareContext> = {}): ShareContext => ({
    epochs: new Map([
      [1, { level: 'standard', logSeq: null }],
      [2, { level: 'standard', logSeq: 3 }],
      [3, { level: 'high', logSeq: 5 }],
    ]),
    logHeadSeq: HEAD.seq,
    held: new Set([1, 2, 3]),
    members: new Map([
      ['bob', { key_version: 2, first_readable_epoch: 2, admitted_seq: 1 }],
      ['carol', { key_version: 1, first_readable_epoch: 3, admitted_seq: 1 }],
    ]),
    ...overrides,
  });
  const mine = (overrides: Partial<EpochKeyShareV2>) =>
    share({
      senderMemberId: 'alice',
      epoch: 2,
      recipientMemberId: 'bob',
      epochLogSeq: overrides.epoch === 3 ? 5 : 3,
      ...overrides,
    });
  const check = (shares: EpochKeyShare[], ctx = context(), keyVersions = { bob: 2, carol: 1 }) =>
    checkShares({ ringId: 'ring', callerId: 'alice', shares, keyVersions }, ctx);

  it('accepts keys the caller holds for members who may read them, once each', () => {
    const result = check([mine({}), mine({}), mine({ epoch: 3, level: 'high', recipientMemberId: 'carol' })]);
    expect(
      result.ok && result.accepted.map((a) => [a.share.epoch, a.share.recipientMemberId, a.keyVersion]),
    ).toEqual([
      [2, 'bob', 2],
      [3, 'carol', 1],
    ]);
  });

  it('refuses epochs the caller does not hold, unknown epochs and wrong levels', () => {
    expect(check([mine({})], context({ held: new Set([3]) }))).toMatchObject({
      status: 403,
      error: E2EE_MESSAGES.notKeyHolder,
    });
    expect(check([mine({ epoch: 9 })])).toMatchObject({ status: 400, error: E2EE_MESSAGES.epochUnknown });
    expect(check([mine({ epoch: 3, level: 'standard' })])).toMatchObject({ status: 400 });
  });

  it('refuses an epoch from before the log, a wrong creation point, a log position past the head', () => {
    expect(
      check(
        [mine({ epoch: 1, epochLogSeq: 0 })],
        context({
          members: new Map([['bob', { key_version: 2, first_readable_epoch: 0, admitted_seq: 1 }]]),
        }),
      ),
    ).toMatchObject({ status: 400 });
    expect(check([mine({ epochLogSeq: 2 })])).toMatchObject({ status: 400 });
    expect(check([mine({ logSeq: HEAD.seq + 1 })])).toMatchObject({ status: 400 });
    expect(check([{ ...mine({}), v: 1 } as unknown as EpochKeyShare])).toMatchObject({ status: 400 });
  });

  it('refuses another sender or Ring', () => {
    expect(check([mine({ senderMemberId: 'bob' })])).toMatchObject({ status: 400 });
    expect(check([mine({ ringId: 'other' })])).toMatchObject({ status: 400 });
  });

  it('shares only with active members with keys who may read that epoch, at their key version', () => {
    expect(check([mine({ recipientMemberId: 'mallory' })])).toMatchObject({
      status: 403,
      error: E2EE_MESSAGES.shareNotAllowed,
    });
    // Carol reads from epoch 3: epoch 2 is history, shared only when her admission shared it.
    expect(check([mine({ recipientMemberId: 'carol' })])).toMatchObject({ status: 403 });
    const historyShared = context({
      members: new Map([['carol', { key_version: 1, first_readable_epoch: 0, admitted_seq: 1 }]]),
    });
    expect(check([mine({ recipientMemberId: 'carol' })], historyShared)).toMatchObject({ ok: true });
    expect(check([mine({})], context(), { bob: 1, carol: 1 })).toMatchObject({
      status: 409,
      code: 'members_changed',
    });
  });
});

describe('pickKeyHolders', () => {
  const holdings = [
    { member_id: 'bob', epoch: 4 },
    { member_id: 'bob', epoch: 3 },
    { member_id: 'carol', epoch: 3 },
    { member_id: 'dave', epoch: 4 },
    { member_id: 'erin', epoch: 4 },
    { member_id: 'me', epoch: 4 },
  ];

  it('picks at most two online holders, newest epoch and most epochs first, never the member', () => {
    const online = new Set(['bob', 'carol', 'dave', 'erin', 'me']);
    const picked = pickKeyHolders([3, 4], holdings, online, 'me', 2, () => 0.5);
    expect(picked[0]).toBe('bob');
    expect(['dave', 'erin']).toContain(picked[1]);
    expect(picked).toHaveLength(2);
  });

  it('ignores offline members and epochs not needed; nobody for nothing needed', () => {
    expect(pickKeyHolders([3], holdings, new Set(['dave', 'carol']), 'me')).toEqual(['carol']);
    expect(pickKeyHolders([4], holdings, new Set(['carol']), 'me')).toEqual([]);
    expect(pickKeyHolders([], holdings, new Set(['bob']), 'me')).toEqual([]);
  });
});

describe('isRotationSoon (a send told to rotate ahead)', () => {
  const fresh = new Date(NOW.getTime() - DAY).toISOString();
  const soonAt = (level: 'standard' | 'high', counts: number[], createdAt: string | null = fresh) =>
    counts.filter((messageCount) => isRotationSoon(level, { createdAt, messageCount }, NOW));

  it('tells the send that reaches 90 % of the count, then one in 20 (standard) or 2 (high)', () => {
    const all = Array.from({ length: 1_001 }, (_, i) => i);
    expect(soonAt('standard', all)).toEqual([900, 920, 940, 960, 980]);
    expect(soonAt('high', all.slice(0, 101))).toEqual([90, 92, 94, 96, 98]);
  });

  it('tells nothing at or past the limit: that send is refused and the rotation is due', () => {
    expect(soonAt('standard', [1_000, 1_020, 2_000])).toEqual([]);
  });

  it('tells one send in 20 once the epoch is 90 % of its 7 days old', () => {
    const old = new Date(NOW.getTime() - 6.4 * DAY).toISOString();
    const young = new Date(NOW.getTime() - 6.2 * DAY).toISOString();
    expect(soonAt('standard', [19, 20, 21, 40], old)).toEqual([20, 40]);
    expect(soonAt('standard', [20, 40], young)).toEqual([]);
    expect(soonAt('standard', [20], null)).toEqual([]);
  });
});
