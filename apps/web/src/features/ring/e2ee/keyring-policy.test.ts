import type { TKeyStateResponse, TPendingShare } from '@securering/contract';
import type { LogMember, MembershipState } from '@securering/e2ee';
import { describe, expect, it } from 'vitest';
import {
  publicKeysId,
  sendBlockedBy,
  verificationOf,
  needsKeySync,
  admissionOf,
  checkAgainstCheckpoint,
  chunk,
  conversationPeerOf,
  decideEpochAction,
  keyringStatus,
  planPendingShares,
  planRotationRecipients,
  sharesToOpen,
  trustOf,
  waitingForAdmission,
  type HeldEpoch,
} from './keyring-policy';

const key = (n: number) => ({ x25519: `x${n}`, ed25519: `e${n}` });

/** A verified log's state as the policy reads it (made by hand: the verifier has its own tests). */
function logOf(
  members: Array<Partial<LogMember> & { id: string }>,
  options: { refused?: string[]; head?: number } = {},
): MembershipState {
  const head = options.head ?? 10;
  return {
    ringId: 'r1',
    level: 'standard',
    head: { seq: head, hash: 'h'.repeat(64) },
    genesisHash: 'g'.repeat(64),
    hashes: Array.from({ length: head + 1 }, (_, i) =>
      i === head ? 'h'.repeat(64) : String(i).repeat(64).slice(0, 64),
    ),
    members: new Map(
      members.map((m, i) => [
        m.id,
        {
          username: m.id,
          role: 'member',
          keys: key(i),
          keysSince: 0,
          formerKeys: [],
          status: 'active',
          statusSince: 0,
          admittedSeq: 0,
          admittedBy: 'me',
          shareHistory: false,
          shareFiles: false,
          ...m,
        } satisfies LogMember,
      ]),
    ),
    refused: new Map((options.refused ?? []).map((id) => [id, { username: id, seq: 1 }])),
  };
}

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

describe('trust from the signed membership log (issue 24)', () => {
  const log = logOf(
    [{ id: 'me', role: 'owner' }, { id: 'alice' }, { id: 'bob' }, { id: 'carol', status: 'deactivated' }],
    { refused: ['mallory'] },
  );

  it('trusts only what the log says: admitted with the same keys', () => {
    expect(trustOf(log, 'alice', key(1))).toBe('trusted');
    // The server publishes other keys for Bob (a reset nobody confirmed yet).
    expect(trustOf(log, 'bob', key(9))).toBe('changed');
    // Never seen in the log: a newcomer, or a ghost the server lists — never trusted on first use.
    expect(trustOf(log, 'ghost', key(7))).toBe('waiting');
    expect(trustOf(log, 'carol', key(3))).toBe('removed');
    expect(trustOf(log, 'mallory', key(8))).toBe('removed');
    expect(trustOf(null, 'alice', key(1))).toBe('waiting');
  });

  it('says where this member stands', () => {
    expect(admissionOf(null, 'me', key(0))).toBe('no_log');
    expect(admissionOf(log, 'me', key(0))).toBe('admitted');
    expect(admissionOf(log, 'me', key(5))).toBe('key_pending');
    expect(admissionOf(log, 'zoe', key(5))).toBe('waiting');
    expect(admissionOf(log, 'carol', key(3))).toBe('removed');
    expect(admissionOf(log, 'mallory', key(8))).toBe('removed');
  });

  it('lists newcomers waiting: listed with keys, neither admitted nor refused', () => {
    const waiting = waitingForAdmission(log, [
      { id: 'alice', keys: key(1), keyVersion: 1 },
      { id: 'zoe', keys: key(5), keyVersion: 1 },
      { id: 'yann', keys: null, keyVersion: null },
      { id: 'mallory', keys: key(8), keyVersion: 1 },
    ]);
    expect(waiting.map((m) => m.id)).toEqual(['zoe']);
    expect(waitingForAdmission(null, [{ id: 'zoe', keys: key(5), keyVersion: 1 }])).toEqual([]);
  });

  it('catches a server that serves another history than the one verified before', () => {
    const checkpoint = { ringId: 'r1', genesisHash: log.genesisHash, headSeq: 4, headHash: log.hashes[4]! };
    expect(checkAgainstCheckpoint(log, undefined)).toBe('ok');
    expect(checkAgainstCheckpoint(log, checkpoint)).toBe('ok');
    expect(checkAgainstCheckpoint(log, { ...checkpoint, genesisHash: 'x'.repeat(64) })).toBe('fork');
    expect(checkAgainstCheckpoint(log, { ...checkpoint, headHash: 'y'.repeat(64) })).toBe('fork');
    expect(checkAgainstCheckpoint(log, { ...checkpoint, headSeq: 11 })).toBe('rollback');
  });
});

describe('« Vérifié » (issue 24)', () => {
  const keysA = { x25519: 'xa', ed25519: 'ea' };
  const keysB = { x25519: 'xb', ed25519: 'ea' };

  it('holds while the log names the keys compared; changed once it names others', () => {
    const marked = publicKeysId(keysA);
    expect(verificationOf(undefined, { keys: keysA, status: 'active' })).toBe('unverified');
    expect(verificationOf(marked, { keys: keysA, status: 'active' })).toBe('verified');
    expect(verificationOf(marked, { keys: keysB, status: 'active' })).toBe('changed');
    // Not an active member of the log: nothing is sent to it anyway.
    expect(verificationOf(marked, { keys: keysB, status: 'inactive' })).toBe('unverified');
    expect(verificationOf(marked, undefined)).toBe('unverified');
  });

  it('blocks the room for any changed verified member, a private conversation for its peer only', () => {
    // Bob's verified key changed (carol's still holds); "me" never blocks itself.
    const verifiedKeyChanged = ['bob', 'me'];
    expect(sendBlockedBy('room:general', 'me', verifiedKeyChanged)).toEqual(['bob']);
    expect(sendBlockedBy('dm:bob:me', 'me', verifiedKeyChanged)).toEqual(['bob']);
    expect(sendBlockedBy('dm:carol:me', 'me', verifiedKeyChanged)).toEqual([]);
  });
});

describe('when to create an epoch', () => {
  const base = {
    currentEpoch: 4,
    rotationDue: false,
    level: 'standard' as const,
    currentKeyLevel: 'standard' as const,
    currentKeyLogSeq: 6,
    readersChangedSeq: 6,
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

  it('rotates when due (age, count), when the signed level changed, or when the log changed who reads', () => {
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
    // An admission, removal or key change after the epoch was made: admission starts an epoch.
    expect(decideEpochAction({ ...base, readersChangedSeq: 7 })).toEqual({
      action: 'rotate',
      epoch: 5,
      reason: 'members',
    });
    // An epoch from before the log is never used to send again.
    expect(decideEpochAction({ ...base, currentKeyLogSeq: undefined })).toMatchObject({ reason: 'members' });
  });

  it('waits without the current key, even when a rotation is due', () => {
    expect(decideEpochAction({ ...base, currentKeyLevel: undefined })).toEqual({ action: 'wait' });
    expect(decideEpochAction({ ...base, currentKeyLevel: undefined, rotationDue: true })).toEqual({
      action: 'wait',
    });
  });
});

describe('who gets a new epoch key', () => {
  it('wraps for itself and the log’s active members the server still lists with the log’s keys', () => {
    const log = logOf([
      { id: 'me', role: 'owner' },
      { id: 'alice' },
      { id: 'bob' },
      { id: 'carol', status: 'deactivated' },
      { id: 'dan' },
    ]);
    const plan = planRotationRecipients({
      selfId: 'me',
      selfKeys: key(0),
      selfKeyVersion: 3,
      log,
      members: [
        { id: 'me', keys: { x25519: 'server-copy', ed25519: 'e0' }, keyVersion: 3 },
        { id: 'alice', keys: key(1), keyVersion: 1 },
        // Bob's published keys are not the log's: withheld until confirmed.
        { id: 'bob', keys: key(9), keyVersion: 2 },
        { id: 'carol', keys: key(3), keyVersion: 1 },
        // A ghost the server lists with keys: never a recipient.
        { id: 'ghost', keys: key(7), keyVersion: 1 },
        // Dan is not listed (the server deactivated him): withheld, the server decides it.
      ],
    });
    expect(plan.recipients).toEqual([
      // Its own keys, never the server's copy of them.
      { memberId: 'me', x25519: 'x0', keyVersion: 3 },
      { memberId: 'alice', x25519: 'x1', keyVersion: 1 },
    ]);
    expect(plan.withheld).toEqual(['bob', 'dan']);
  });
});

describe('sharing keys with members who lack them', () => {
  const log = logOf([
    { id: 'me', role: 'owner' },
    { id: 'alice', admittedSeq: 5 },
    { id: 'bob' },
    { id: 'dan', admittedSeq: 8, shareHistory: true },
  ]);
  const held = new Map<number, HeldEpoch>([
    [1, { epoch: 1, logSeq: undefined }],
    [2, { epoch: 2, logSeq: 3 }],
    [3, { epoch: 3, logSeq: 5 }],
    [4, { epoch: 4, logSeq: 9 }],
  ]);
  const pending: TPendingShare[] = [
    { memberId: 'alice', keyVersion: 1, publicKeys: key(1), epochs: [3, 1, 2, 2, 4] },
    { memberId: 'bob', keyVersion: 4, publicKeys: key(9), epochs: [3] },
    { memberId: 'me', keyVersion: 1, publicKeys: key(0), epochs: [3] },
    { memberId: 'dan', keyVersion: 1, publicKeys: key(3), epochs: [1, 2, 3, 4, 5] },
    { memberId: 'ghost', keyVersion: 1, publicKeys: key(7), epochs: [1, 2, 3, 4] },
  ];

  it('wraps to the log’s keys the epochs each member may read: from its admission, or all with the history', () => {
    const plan = planPendingShares({ selfId: 'me', pending, held, log });
    expect(plan.targets).toEqual([
      // Alice was admitted at seq 5: epochs created from then on (3 and 4), never 2 or the legacy 1.
      { memberId: 'alice', x25519: 'x1', keyVersion: 1, epochs: [3, 4] },
      // Dan's admission shared the history: every epoch held that can be shared (not the legacy one).
      { memberId: 'dan', x25519: 'x3', keyVersion: 1, epochs: [2, 3, 4] },
    ]);
    expect(plan.unconfirmed).toEqual(['bob']);
    // C1: a ghost the server lists in `pending` gets nothing, and is reported.
    expect(plan.ignored).toEqual(['ghost']);
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
