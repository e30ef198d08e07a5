import {
  ROOM_CONVERSATION_ID,
  dmConversationId,
  type TKeyStateResponse,
  type TPendingShare,
  type TPublicKeys,
} from '@securering/contract';
import {
  activeLogMembers,
  samePublicIdentity,
  type MembershipState,
  type SecurityLevel,
} from '@securering/e2ee';

/**
 * The keyring's decisions, as pure functions: what the status is, when to create an epoch, whom
 * to share which epoch keys with, whose key changed. keyring.ts does the I/O around them.
 */

/** The `data-e2ee-state` of the room (spec 2 §4). */
export type KeyringStatus = 'locked' | 'waiting_keys' | 'active' | 'failed';

export function keyringStatus(input: {
  unlocked: boolean;
  failed: boolean;
  currentEpoch: number;
  holdsCurrentEpoch: boolean;
}): KeyringStatus {
  if (input.failed) return 'failed';
  if (!input.unlocked) return 'locked';
  return input.currentEpoch > 0 && input.holdsCurrentEpoch ? 'active' : 'waiting_keys';
}

// ---- « Vérifié »: safety numbers this person compared (issue 24) ------------------------------------

/**
 * Whether this person verified a member: `verified` when it marked the member « Vérifié » with the
 * keys the log names for it now; `changed` when it verified other keys (the member reset and a
 * Ring admin confirmed the new ones in the log): nothing is sent to that member until the person
 * compares again; `unverified` otherwise (never marked, or not an active member of the log).
 * `markedKeys` is the {@link publicKeysId} of the keys compared.
 */
export type Verification = 'unverified' | 'verified' | 'changed';

export function verificationOf(
  markedKeys: string | undefined,
  logMember: { keys: TPublicKeys; status: string } | undefined,
): Verification {
  if (markedKeys === undefined || !logMember || logMember.status !== 'active') return 'unverified';
  return publicKeysId(logMember.keys) === markedKeys ? 'verified' : 'changed';
}

/** One string for a member's two public keys (safety-number cache, verified marks). */
export function publicKeysId(keys: TPublicKeys): string {
  return `${keys.x25519}|${keys.ed25519}`;
}

/**
 * The members a message to `conversationId` must not be sent to yet, of `verifiedKeyChanged` (the
 * members this person verified whose keys changed since): in the room, all of them; in a private
 * conversation, the peer if it is one of them. The keyring refuses the send and the composer says
 * why, both from this rule.
 */
export function sendBlockedBy(
  conversationId: string,
  selfId: string,
  verifiedKeyChanged: readonly string[],
): string[] {
  const changed = verifiedKeyChanged.filter((id) => id !== selfId);
  if (conversationId === ROOM_CONVERSATION_ID) return changed;
  return changed.filter((id) => dmConversationId(selfId, id) === conversationId);
}

// ---- Trust from the signed membership log (issue 24) ---------------------------------------------

/**
 * What may be done with a member's keys, from the verified membership log only:
 * - `trusted`: admitted and active, and the keys the server publishes for it are the log's;
 * - `changed`: admitted, but the server publishes other keys (a reset not yet confirmed in the log):
 *   nothing is wrapped to them until a member who may confirms the key change;
 * - `waiting`: not in the log — a newcomer waiting for admission (or a member the server invents);
 * - `removed`: deactivated or refused in the log.
 */
export type MemberTrust = 'trusted' | 'changed' | 'waiting' | 'removed';

export function trustOf(log: MembershipState | null, memberId: string, published: TPublicKeys): MemberTrust {
  if (!log) return 'waiting';
  if (log.refused.has(memberId)) return 'removed';
  const member = log.members.get(memberId);
  if (!member) return 'waiting';
  if (member.status !== 'active') return 'removed';
  return samePublicIdentity(member.keys, published) ? 'trusted' : 'changed';
}

/** Where this member stands in the Ring's log (what its room says). */
export type Admission = 'no_log' | 'waiting' | 'key_pending' | 'admitted' | 'removed';

export function admissionOf(
  log: MembershipState | null,
  selfId: string,
  ownKeys: TPublicKeys | null,
): Admission {
  if (!log) return 'no_log';
  if (log.refused.has(selfId)) return 'removed';
  const self = log.members.get(selfId);
  if (!self) return 'waiting';
  if (self.status !== 'active') return 'removed';
  return ownKeys && samePublicIdentity(self.keys, ownKeys) ? 'admitted' : 'key_pending';
}

/**
 * A log the server serves must extend the one this browser verified before (its checkpoint): same
 * genesis, the checkpoint's link still at its place, never shorter. Returns the problem, if any.
 */
export interface LogCheckpoint {
  ringId: string;
  genesisHash: string;
  headSeq: number;
  headHash: string;
  /**
   * The member's signature of this head (e2ee `signLogCheckpoint`): only then does a new tab skip
   * the signature checks of the links up to it (`verifiedHead`). Absent in older checkpoints.
   */
  sig?: string;
}

export function checkAgainstCheckpoint(
  log: MembershipState,
  checkpoint: LogCheckpoint | undefined,
): 'ok' | 'fork' | 'rollback' {
  if (!checkpoint) return 'ok';
  if (log.genesisHash !== checkpoint.genesisHash) return 'fork';
  if (log.head.seq < checkpoint.headSeq) return 'rollback';
  return log.hashes[checkpoint.headSeq] === checkpoint.headHash ? 'ok' : 'fork';
}

// ---- Epochs -------------------------------------------------------------------------------------

export type EpochAction =
  | { action: 'none' }
  | { action: 'wait' }
  | { action: 'rotate'; epoch: number; reason: 'first' | 'due' | 'level' | 'members' };

/**
 * Whether the member must create the next epoch before sending: the Ring has none yet, the server
 * says one is due (age, message count), the level the owner signed differs from the current
 * epoch's, or the log changed who reads since the current epoch was created (an admission, a
 * removal, a key change: `readersChangedSeq` after the epoch's `currentKeyLogSeq`, or an epoch
 * from before the log). Only a holder of the current epoch creates the next one (it carries the
 * Ring names key over); a member who lacks it waits for it (or, when nobody holds it any more,
 * starts a recovery epoch: see Keyring.ensureSendableEpoch).
 */
export function decideEpochAction(input: {
  currentEpoch: number;
  rotationDue: boolean;
  /** The level signed in the membership log. */
  level: SecurityLevel;
  /** Level of the current epoch's key, when this member holds it. */
  currentKeyLevel: SecurityLevel | undefined;
  /** Log seq the current epoch was created at (undefined: before the log, or not held). */
  currentKeyLogSeq?: number;
  /** Seq of the last link that changed who reads (lastReadersChange). */
  readersChangedSeq?: number;
}): EpochAction {
  const next = input.currentEpoch + 1;
  if (input.currentEpoch === 0) return { action: 'rotate', epoch: 1, reason: 'first' };
  if (input.currentKeyLevel === undefined) return { action: 'wait' };
  if (
    input.readersChangedSeq !== undefined &&
    (input.currentKeyLogSeq === undefined || input.currentKeyLogSeq < input.readersChangedSeq)
  )
    return { action: 'rotate', epoch: next, reason: 'members' };
  if (input.rotationDue) return { action: 'rotate', epoch: next, reason: 'due' };
  if (input.currentKeyLevel !== input.level) return { action: 'rotate', epoch: next, reason: 'level' };
  return { action: 'none' };
}

/** A member as the Ring lists it, with its published keys (null until it first unlocks). */
export interface KeyedMember {
  id: string;
  keys: TPublicKeys | null;
  /** Version of `keys` on the server (sent back with the shares wrapped to them). */
  keyVersion: number | null;
}

/**
 * Who gets the key of a new epoch: the members the verified log admitted and keeps active, whose
 * keys the server still lists as the log's (it can only leave members out — it cannot add one),
 * wrapped to the log's keys; the creator with its own keys. Active log members the server does
 * not list that way are `withheld` (a key change waiting for confirmation, a member the server
 * deactivated): the server refuses a rotation that withholds a member it could serve.
 */
export function planRotationRecipients(input: {
  selfId: string;
  selfKeys: TPublicKeys;
  selfKeyVersion: number;
  log: MembershipState;
  members: readonly KeyedMember[];
}): { recipients: Array<{ memberId: string; x25519: string; keyVersion: number }>; withheld: string[] } {
  const recipients = [
    { memberId: input.selfId, x25519: input.selfKeys.x25519, keyVersion: input.selfKeyVersion },
  ];
  const withheld: string[] = [];
  const listed = new Map(input.members.map((m) => [m.id, m]));
  for (const member of activeLogMembers(input.log)) {
    if (member.id === input.selfId) continue;
    const server = listed.get(member.id);
    if (server?.keys && server.keyVersion !== null && samePublicIdentity(server.keys, member.keys))
      recipients.push({ memberId: member.id, x25519: member.keys.x25519, keyVersion: server.keyVersion });
    else withheld.push(member.id);
  }
  return { recipients, withheld };
}

/** An epoch key this member holds, as the sharing plan reads it. */
export interface HeldEpoch {
  epoch: number;
  /** Log seq the epoch was created at; undefined for an epoch from before the log (never shared). */
  logSeq: number | undefined;
}

/**
 * The shares to make for members who lack epoch keys (state.php `pending`), by the verified log:
 * only active log members whose pending keys are the log's (wrapped to the log's keys), only
 * epochs this member holds and that member may read — created at or after its admission, or
 * earlier ones when its admission shared the history. `ignored` lists entries that are not log
 * members at all (a server asking for a ghost: shown to admins), `unconfirmed` those whose keys
 * differ from the log's.
 */
export function planPendingShares(input: {
  selfId: string;
  pending: readonly TPendingShare[];
  held: ReadonlyMap<number, HeldEpoch>;
  log: MembershipState;
}): {
  targets: Array<{ memberId: string; x25519: string; keyVersion: number; epochs: number[] }>;
  unconfirmed: string[];
  ignored: string[];
} {
  const targets: Array<{ memberId: string; x25519: string; keyVersion: number; epochs: number[] }> = [];
  const unconfirmed: string[] = [];
  const ignored: string[] = [];
  for (const entry of input.pending) {
    if (entry.memberId === input.selfId) continue;
    const member = input.log.members.get(entry.memberId);
    if (!member || member.status !== 'active') {
      ignored.push(entry.memberId);
      continue;
    }
    if (!samePublicIdentity(member.keys, entry.publicKeys)) {
      unconfirmed.push(entry.memberId);
      continue;
    }
    const epochs = [...new Set(entry.epochs)]
      .filter((e) => {
        const held = input.held.get(e);
        if (!held || held.logSeq === undefined) return false;
        return member.shareHistory || held.logSeq >= member.admittedSeq;
      })
      .sort((a, b) => a - b);
    if (epochs.length > 0)
      targets.push({
        memberId: entry.memberId,
        x25519: member.keys.x25519,
        keyVersion: entry.keyVersion,
        epochs,
      });
  }
  return { targets, unconfirmed, ignored };
}

/**
 * Newcomers who wait for admission: members the server lists with published keys that the log
 * has neither admitted nor refused.
 */
export function waitingForAdmission(
  log: MembershipState | null,
  members: readonly KeyedMember[],
): KeyedMember[] {
  if (!log) return [];
  return members.filter((m) => m.keys && !log.members.has(m.id) && !log.refused.has(m.id));
}

/**
 * Members the log says are active but the server no longer lists (deactivated in the customer
 * space): the owner and Ring admins may record it in the log (« Retirer … du journal »). Nothing is
 * decided for them: the server already serves these members nothing, and a browser wraps keys only
 * to members the server lists with the log's keys. Empty until the list includes this member (a
 * list not read yet says nothing).
 */
export function departedMembers(
  log: MembershipState | null,
  selfId: string,
  listed: ReadonlySet<string>,
): Array<{ id: string; username: string }> {
  if (!log || !listed.has(selfId)) return [];
  return [...log.members.values()]
    .filter((m) => m.status === 'active' && m.role !== 'owner' && m.id !== selfId && !listed.has(m.id))
    .map((m) => ({ id: m.id, username: m.username }));
}

/**
 * Members the server lists (reactivated in the customer space) whom the log deactivated: they read
 * nothing new until the owner or a Ring admin signs their reactivation in the room.
 */
export function reactivatableMembers(log: MembershipState | null, listed: ReadonlySet<string>): string[] {
  if (!log) return [];
  return [...log.members.values()]
    .filter((m) => m.status === 'deactivated' && listed.has(m.id))
    .map((m) => m.id);
}

/** The shares of state.php to open: epochs this member lacks, from its first readable one, by epoch. */
export function sharesToOpen(
  shares: TKeyStateResponse['shares'],
  held: ReadonlySet<number>,
  firstReadableEpoch: number,
): Map<number, TKeyStateResponse['shares']> {
  const byEpoch = new Map<number, TKeyStateResponse['shares']>();
  for (const entry of shares) {
    if (held.has(entry.epoch) || entry.epoch < firstReadableEpoch || entry.share.epoch !== entry.epoch)
      continue;
    byEpoch.set(entry.epoch, [...(byEpoch.get(entry.epoch) ?? []), entry]);
  }
  return byEpoch;
}

/** Splits a list into chunks of at most `size` (the share calls take up to 2000 shares). */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

// ---- Private conversations -----------------------------------------------------------------------

/**
 * Who the other member of a conversation is, for its key: null for the Ring's room (epoch key);
 * the peer's id for a private conversation `dm:<a>:<b>` of which `selfId` is one member (pairwise
 * conversation key). Anything else — an unknown id, someone else's DM — is "not for this member".
 */
export function conversationPeerOf(
  conversationId: string,
  selfId: string,
): { kind: 'room' } | { kind: 'dm'; peerId: string } | { kind: 'foreign' } {
  if (conversationId === ROOM_CONVERSATION_ID) return { kind: 'room' };
  const parts = conversationId.split(':');
  if (parts.length !== 3 || parts[0] !== 'dm') return { kind: 'foreign' };
  const [, a = '', b = ''] = parts;
  if (!a || !b || a === b || dmConversationId(a, b) !== conversationId) return { kind: 'foreign' };
  if (a === selfId) return { kind: 'dm', peerId: b };
  if (b === selfId) return { kind: 'dm', peerId: a };
  return { kind: 'foreign' };
}

/**
 * Whether a join_ring answer calls for reading the key state again: unless the Ring's key revision
 * it carries is the one of the state held (nothing the key state depends on changed meanwhile).
 * No state held yet, or no revision in the answer: read.
 */
export function needsKeySync(held: number | undefined, answered: number | undefined): boolean {
  return held === undefined || answered === undefined || held !== answered;
}
