import type { TKeyStateResponse, TPendingShare } from '@securering/contract';
import { describe, expect, it } from 'vitest';
import {
  needsKeySync,
  MAX_PREVIOUS_KEYS,
  acceptKeys,
  chunk,
  compareWithSeen,
  conversationPeerOf,
  decideEpochAction,
  keyringStatus,
  planPendingShares,
  planRotationRecipients,
  sharesToOpen,
  trustOf,
  type SeenKey,
} from './keyring-policy';

const key = (n: number) => ({ x25519: `x${n}`, ed25519: `e${n}` });
const target = { ringId: 'r1', memberId: 'm2' };
const T0 = new Date('2026-11-24T10:00:00.000Z');
const T1 = new Date('2026-11-25T10:00:00.000Z');

describe('keyring status (data-e2ee-state)', () => {
  it('is locked before the passphrase and failed after a wrong one', () => {
    expect(keyringStatus({ unlocked: false, failed: false, currentEpoch: 3, holdsCurrentEpoch: false })).toBe(
      'locked',
    );
    expect(keyringStatus({ unlocked: false, failed: true, currentEpoch: 3, holdsCurrentEpoch: false })).toBe(
      'failed',
    );
  });

  it('is active only when the current epoch key is held, waiting otherwise', () => {
    expect(keyringStatus({ unlocked: true, failed: false, currentEpoch: 3, holdsCurrentEpoch: true })).toBe(
      'active',
    );
    expect(keyringStatus({ unlocked: true, failed: false, currentEpoch: 3, holdsCurrentEpoch: false })).toBe(
      'waiting_keys',
    );
    // No epoch yet: nothing can be encrypted until epoch 1 exists.
    expect(keyringStatus({ unlocked: true, failed: false, currentEpoch: 0, holdsCurrentEpoch: false })).toBe(
      'waiting_keys',
    );
  });
});

describe('trust on first use of members’ keys', () => {
  it('trusts a first sighting, keeps the same key, flags a different one', () => {
    expect(compareWithSeen(undefined, key(1))).toBe('new');
    const seen = acceptKeys(undefined, target, key(1), T0);
    expect(seen).toEqual({
      ...target,
      current: key(1),
      previous: [],
      firstSeenAt: T0.toISOString(),
      acceptedAt: T0.toISOString(),
    });
    expect(compareWithSeen(seen, key(1))).toBe('same');
    expect(compareWithSeen(seen, key(2))).toBe('changed');
    expect(compareWithSeen(seen, { x25519: 'x1', ed25519: 'e9' })).toBe('changed');
    expect(trustOf('new')).toBe('trusted');
    expect(trustOf('same')).toBe('trusted');
    expect(trustOf('changed')).toBe('changed');
  });

  it('on confirmation remembers the new key and keeps the old ones, newest first', () => {
    const first = acceptKeys(undefined, target, key(1), T0);
    const second = acceptKeys(first, target, key(2), T1);
    expect(second.current).toEqual(key(2));
    expect(second.previous).toEqual([key(1)]);
    expect(second.firstSeenAt).toBe(T0.toISOString());
    expect(second.acceptedAt).toBe(T1.toISOString());
    expect(acceptKeys(second, target, key(2), T1)).toBe(second);
    // Going back to an earlier key does not list it twice.
    expect(acceptKeys(second, target, key(1), T1).previous).toEqual([key(2)]);
  });

  it('keeps a bounded number of earlier keys', () => {
    let seen: SeenKey | undefined;
    for (let i = 0; i < MAX_PREVIOUS_KEYS + 5; i++) seen = acceptKeys(seen, target, key(i), T0);
    expect(seen!.previous).toHaveLength(MAX_PREVIOUS_KEYS);
    expect(seen!.previous[0]).toEqual(key(MAX_PREVIOUS_KEYS + 3));
  });
});

describe('when to create an epoch', () => {
  const base = {
    currentEpoch: 4,
    rotationDue: false,
    level: 'standard' as const,
    currentKeyLevel: 'standard' as const,
  };

  it('creates epoch 1 in a Ring without any', () => {
    expect(decideEpochAction({ ...base, currentEpoch: 0, currentKeyLevel: undefined })).toEqual({
      action: 'rotate',
      epoch: 1,
      reason: 'first',
    });
  });

  it('keeps the current epoch when nothing is due', () => {
    expect(decideEpochAction(base)).toEqual({ action: 'none' });
  });

  it('rotates when due (membership change, age, count) or when the level changed', () => {
    expect(decideEpochAction({ ...base, rotationDue: true })).toEqual({
      action: 'rotate',
      epoch: 5,
      reason: 'due',
    });
    expect(decideEpochAction({ ...base, level: 'military' })).toEqual({
      action: 'rotate',
      epoch: 5,
      reason: 'level',
    });
  });

  it('waits without the current key, even when a rotation is due', () => {
    expect(decideEpochAction({ ...base, currentKeyLevel: undefined })).toEqual({ action: 'wait' });
    expect(decideEpochAction({ ...base, currentKeyLevel: undefined, rotationDue: true })).toEqual({
      action: 'wait',
    });
  });
});

describe('who gets a new epoch key', () => {
  it('wraps for itself and every member with keys, withholding unconfirmed key changes', () => {
    const plan = planRotationRecipients({
      selfId: 'me',
      selfKeys: key(0),
      selfKeyVersion: 3,
      members: [
        { id: 'me', keys: { x25519: 'server-copy', ed25519: 'e0' }, keyVersion: 3 },
        { id: 'alice', keys: key(1), keyVersion: 1 },
        { id: 'bob', keys: key(2), keyVersion: 2 },
        { id: 'carol', keys: null, keyVersion: null },
      ],
      trust: (id) => (id === 'bob' ? 'changed' : 'trusted'),
    });
    expect(plan.recipients).toEqual([
      // Its own keys, never the server's copy of them.
      { memberId: 'me', x25519: 'x0', keyVersion: 3 },
      { memberId: 'alice', x25519: 'x1', keyVersion: 1 },
    ]);
    expect(plan.withheld).toEqual(['bob']);
  });
});

describe('sharing keys with members who lack them', () => {
  const pending: TPendingShare[] = [
    { memberId: 'alice', keyVersion: 1, publicKeys: key(1), epochs: [3, 1, 2, 2] },
    { memberId: 'bob', keyVersion: 4, publicKeys: key(2), epochs: [3] },
    { memberId: 'me', keyVersion: 1, publicKeys: key(0), epochs: [3] },
    { memberId: 'dan', keyVersion: 1, publicKeys: key(4), epochs: [1] },
  ];

  it('wraps the epochs it holds for trusted members, skipping itself and unconfirmed keys', () => {
    const plan = planPendingShares({
      selfId: 'me',
      pending,
      heldEpochs: new Set([2, 3]),
      trust: (id) => (id === 'bob' ? 'changed' : 'trusted'),
    });
    expect(plan.targets).toEqual([{ memberId: 'alice', x25519: 'x1', keyVersion: 1, epochs: [2, 3] }]);
    expect(plan.unconfirmed).toEqual(['bob']);
  });

  it('shares with a member once its new key is confirmed', () => {
    const plan = planPendingShares({
      selfId: 'me',
      pending,
      heldEpochs: new Set([3]),
      trust: () => 'trusted',
    });
    expect(plan.targets.map((t) => t.memberId)).toEqual(['alice', 'bob']);
  });
});

describe('shares to open', () => {
  const share = (epoch: number, sender: string) =>
    ({ epoch, senderMemberId: sender, share: { epoch } }) as unknown as TKeyStateResponse['shares'][number];

  it('groups the missing readable epochs, keeping every sender as a fallback', () => {
    const groups = sharesToOpen(
      [share(1, 'a'), share(2, 'a'), share(3, 'a'), share(3, 'b'), share(4, 'a')],
      new Set([2]),
      2,
    );
    expect([...groups.keys()]).toEqual([3, 4]);
    expect(groups.get(3)!.map((s) => s.senderMemberId)).toEqual(['a', 'b']);
  });

  it('ignores a share whose inner epoch differs from the listed one', () => {
    const odd = {
      epoch: 5,
      senderMemberId: 'a',
      share: { epoch: 6 },
    } as unknown as TKeyStateResponse['shares'][number];
    expect(sharesToOpen([odd], new Set(), 0).size).toBe(0);
  });
});

describe('chunk', () => {
  it('splits into parts of at most the size', () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunk([], 3)).toEqual([]);
  });
});

describe('conversation peers (which key a conversation uses)', () => {
  it('uses the epoch key for the room and the pairwise key with the other member of a DM', () => {
    expect(conversationPeerOf('room:general', 'm1')).toEqual({ kind: 'room' });
    expect(conversationPeerOf('dm:m1:m2', 'm1')).toEqual({ kind: 'dm', peerId: 'm2' });
    expect(conversationPeerOf('dm:m1:m2', 'm2')).toEqual({ kind: 'dm', peerId: 'm1' });
  });

  it('refuses another pair’s DM, unsorted or malformed ids and self-conversations', () => {
    for (const id of ['dm:m2:m3', 'dm:m2:m1', 'dm:m1:m1', 'dm:m1', 'dm:m1:m2:x', 'room:other', 'dm::m1']) {
      expect(conversationPeerOf(id, 'm1')).toEqual({ kind: 'foreign' });
    }
  });
});

describe('needsKeySync', () => {
  it('skips the key-state read only when the join answers the revision of the state held', () => {
    expect(needsKeySync(4, 4)).toBe(false);
    expect(needsKeySync(4, 5)).toBe(true);
    // No state held yet, or an answer without the revision (an older server): read.
    expect(needsKeySync(undefined, 4)).toBe(true);
    expect(needsKeySync(4, undefined)).toBe(true);
    expect(needsKeySync(0, 0)).toBe(false);
  });
});
