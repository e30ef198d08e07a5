import {
  ROOM_CONVERSATION_ID,
  dmConversationId,
  type TKeyStateResponse,
  type TPendingShare,
  type TPublicKeys,
} from '@securering/contract';
import type { SecurityLevel } from '@securering/e2ee';

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

// ---- Trust on first use (safety numbers) --------------------------------------------------------

/** A member's public keys as this browser remembers them, per Ring and member (IndexedDB). */
export interface SeenKey {
  ringId: string;
  memberId: string;
  /** The keys last accepted: first seen, or confirmed by the person after a change. */
  current: TPublicKeys;
  /** Earlier accepted keys, newest first: what this member signed before a key reset. */
  previous: TPublicKeys[];
  firstSeenAt: string;
  acceptedAt: string;
}

/** How many earlier keys of one member are kept. */
export const MAX_PREVIOUS_KEYS = 10;

/** `new`: never seen here; `same`: the remembered keys; `changed`: different from them. */
export type KeyComparison = 'new' | 'same' | 'changed';

export function sameKeys(a: TPublicKeys, b: TPublicKeys): boolean {
  return a.x25519 === b.x25519 && a.ed25519 === b.ed25519;
}

export function compareWithSeen(seen: SeenKey | undefined, keys: TPublicKeys): KeyComparison {
  if (!seen) return 'new';
  return sameKeys(seen.current, keys) ? 'same' : 'changed';
}

/**
 * The record after accepting `keys` for a member: the first sighting (trust on first use), or a
 * change the person confirmed. Earlier keys move to `previous` (to verify what they signed then).
 */
export function acceptKeys(
  seen: SeenKey | undefined,
  target: { ringId: string; memberId: string },
  keys: TPublicKeys,
  now: Date,
): SeenKey {
  const at = now.toISOString();
  if (!seen) {
    return { ...target, current: keys, previous: [], firstSeenAt: at, acceptedAt: at };
  }
  if (sameKeys(seen.current, keys)) return seen;
  const previous = [seen.current, ...seen.previous.filter((k) => !sameKeys(k, keys))].slice(
    0,
    MAX_PREVIOUS_KEYS,
  );
  return { ...seen, current: keys, previous, acceptedAt: at };
}

/** What may be done with a member's published keys. */
export type MemberTrust = 'trusted' | 'changed';

/** Trust of a member's published keys from the comparison (a new key is trusted on first use). */
export function trustOf(comparison: KeyComparison): MemberTrust {
  return comparison === 'changed' ? 'changed' : 'trusted';
}

// ---- Epochs -------------------------------------------------------------------------------------

export type EpochAction =
  | { action: 'none' }
  | { action: 'wait' }
  | { action: 'rotate'; epoch: number; reason: 'first' | 'due' | 'level' };

/**
 * Whether the member must create the next epoch before sending: the Ring has none yet, the server
 * says one is due (membership change, age, message count, level change), or the Ring's level
 * differs from the current epoch's. Only a holder of the current epoch may create the next one
 * (it carries the Ring names key over); a member who lacks it waits for it.
 */
export function decideEpochAction(input: {
  currentEpoch: number;
  rotationDue: boolean;
  level: SecurityLevel;
  /** Level of the current epoch's key, when this member holds it. */
  currentKeyLevel: SecurityLevel | undefined;
}): EpochAction {
  const next = input.currentEpoch + 1;
  if (input.currentEpoch === 0) return { action: 'rotate', epoch: 1, reason: 'first' };
  if (input.currentKeyLevel === undefined) return { action: 'wait' };
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
 * Who gets the key of a new epoch: every listed member with published keys, and the creator with
 * its own keys (not the server's copy of them). Members whose key changed without confirmation
 * here are `withheld`: they get nothing from this member until the person confirms.
 */
export function planRotationRecipients(input: {
  selfId: string;
  selfKeys: TPublicKeys;
  selfKeyVersion: number;
  members: readonly KeyedMember[];
  trust: (memberId: string, keys: TPublicKeys) => MemberTrust;
}): { recipients: Array<{ memberId: string; x25519: string; keyVersion: number }>; withheld: string[] } {
  const recipients = [
    { memberId: input.selfId, x25519: input.selfKeys.x25519, keyVersion: input.selfKeyVersion },
  ];
  const withheld: string[] = [];
  const done = new Set([input.selfId]);
  for (const member of input.members) {
    if (!member.keys || member.keyVersion === null || done.has(member.id)) continue;
    done.add(member.id);
    if (input.trust(member.id, member.keys) === 'changed') withheld.push(member.id);
    else recipients.push({ memberId: member.id, x25519: member.keys.x25519, keyVersion: member.keyVersion });
  }
  return { recipients, withheld };
}

/**
 * The shares to make for members who lack epoch keys (state.php `pending`): the epochs asked for
 * that this member holds, for members whose keys it trusts. Skipped: itself, members whose key
 * changed without confirmation, and members needing only epochs it lacks.
 */
export function planPendingShares(input: {
  selfId: string;
  pending: readonly TPendingShare[];
  heldEpochs: ReadonlySet<number>;
  trust: (memberId: string, keys: TPublicKeys) => MemberTrust;
}): {
  targets: Array<{ memberId: string; x25519: string; keyVersion: number; epochs: number[] }>;
  unconfirmed: string[];
} {
  const targets: Array<{ memberId: string; x25519: string; keyVersion: number; epochs: number[] }> = [];
  const unconfirmed: string[] = [];
  for (const entry of input.pending) {
    if (entry.memberId === input.selfId) continue;
    if (input.trust(entry.memberId, entry.publicKeys) === 'changed') {
      unconfirmed.push(entry.memberId);
      continue;
    }
    const epochs = [...new Set(entry.epochs)].filter((e) => input.heldEpochs.has(e)).sort((a, b) => a - b);
    if (epochs.length > 0) {
      targets.push({
        memberId: entry.memberId,
        x25519: entry.publicKeys.x25519,
        keyVersion: entry.keyVersion,
        epochs,
      });
    }
  }
  return { targets, unconfirmed };
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
