import { E2EE_MESSAGES, type TE2eeErrorCode, type TPublicKeys } from '@securering/contract';
import {
  LEVEL_PARAMETERS,
  shouldRotateEpoch,
  type EpochKeyShare,
  type SecurityLevel,
} from '@securering/e2ee';

/**
 * Pure rules of the Ring key layer (issue 10): when a new epoch is due, which epochs a member may
 * read, how a published key record may change, what a rotation must contain, who may receive a
 * share, and which online members to nudge. The service applies them to database rows.
 */

/** A refusal: HTTP status, French message and, for 409s the client acts on, a code. */
export interface KeyRuleError {
  status: 400 | 403 | 409;
  error: string;
  code?: TE2eeErrorCode;
}
export type KeyRuleResult<T = object> = ({ ok: true } & T) | ({ ok: false } & KeyRuleError);

const refuse = (status: KeyRuleError['status'], error: string, code?: TE2eeErrorCode) =>
  ({ ok: false, status, error, ...(code ? { code } : {}) }) as const;

/** What the rotation rule reads of a Ring. */
export interface RingEpochState {
  current_epoch: number;
  epoch_created_at: string | null;
  epoch_message_count: number;
  rotation_due: 0 | 1;
  encryption_level: SecurityLevel;
}

/**
 * Whether the next message needs a new epoch first: there is none yet, a membership change made
 * one due, the epoch is too old or carried too many messages for its level (7 days; 1,000 or 100
 * messages), or the Ring's level is no longer the epoch's.
 */
export function isRotationDue(
  ring: RingEpochState,
  epochLevel: SecurityLevel | undefined,
  now: Date,
): boolean {
  if (ring.current_epoch === 0 || !epochLevel || !ring.epoch_created_at) return true;
  if (ring.rotation_due === 1) return true;
  if (epochLevel !== ring.encryption_level) return true;
  return shouldRotateEpoch(
    epochLevel,
    { createdAt: ring.epoch_created_at, messageCount: ring.epoch_message_count },
    now,
  );
}

/** The share of an epoch's messages or age past which its senders are told to rotate ahead. */
export const ROTATE_AHEAD_FROM = 0.9;
/** After the first hint, one send in (the level's messages per epoch / this) is told: 1,000 → 20. */
export const ROTATE_AHEAD_SPACING = 50;

/**
 * Whether the answer to the send that brought the epoch to `epochCount` messages tells its sender
 * to create the next epoch now (`rotationSoon`, issue 30): the epoch has carried 90 % of the
 * messages or of the age its level allows. Otherwise the send that reaches the limit is refused
 * (`rotation_required`) and every sender waits for the new epoch, its wraps for every member
 * included. Only some sends are told (the first past the threshold, then one in
 * `messagesPerEpoch / ROTATE_AHEAD_SPACING`), so that a busy Ring starts one or two rotations,
 * not one per sender; a sender gone before it rotated is relayed by the next hint. A hint decides
 * nothing: the browser holding the current epoch rotates as it would when one is due, and a
 * server that lies only makes it rotate sooner, as `rotationDue` could already.
 */
export function isRotationSoon(
  level: SecurityLevel,
  epoch: { createdAt: string | null; messageCount: number },
  now: Date,
): boolean {
  const { rotateAfterMessages, rotateAfterMs } = LEVEL_PARAMETERS[level];
  const every = Math.max(1, Math.floor(rotateAfterMessages / ROTATE_AHEAD_SPACING));
  const fromCount = Math.ceil(rotateAfterMessages * ROTATE_AHEAD_FROM);
  if (epoch.messageCount >= rotateAfterMessages) return false;
  if (epoch.messageCount >= fromCount) return (epoch.messageCount - fromCount) % every === 0;
  const age = epoch.createdAt === null ? 0 : now.getTime() - Date.parse(epoch.createdAt);
  return age >= rotateAfterMs * ROTATE_AHEAD_FROM && epoch.messageCount % every === 0;
}

/**
 * The first epoch a member may read, as its admission in the membership log set it: the epoch the
 * admission started (the next one after a reactivation), or every epoch (0) when the member who
 * admitted it ticked « Partager l'historique ». The Ring's history setting only decides whether
 * that box is offered: it never opens the history by itself (issue 24, H1).
 */
export function firstReadableEpoch(member: ReadableEpochs): number {
  return member.admitted_seq === null || member.log_deactivated === 1
    ? NOTHING_READABLE
    : member.first_readable_epoch;
}

export function mayReadEpoch(member: ReadableEpochs, epoch: number): boolean {
  return epoch >= firstReadableEpoch(member);
}

/** What decides which epochs a member may read. */
export interface ReadableEpochs {
  first_readable_epoch: number;
  /** Null while no member admitted it in the log: it may read nothing, not even ciphertext. */
  admitted_seq: number | null;
  /** 1 while the log deactivated it (reactivated in the customer space only): nothing either. */
  log_deactivated?: number;
}

/** The first readable epoch of a member nobody admitted yet: past every epoch there will be. */
export const NOTHING_READABLE = 2_147_483_647;

/** How a save-member-key call changes what is stored. */
export type KeySaveDecision =
  /** Nothing valid stored yet: store it, key version 1. */
  | { kind: 'publish' }
  /** Same public keys, new record (more iterations, new passphrase): replace the record only. */
  | { kind: 'upgrade' }
  /** New public keys ("Réinitialiser mes clés"): next key version, the member's shares dropped. */
  | { kind: 'reset' };

export function decideKeySave(
  existing: { public_x25519: string; public_ed25519: string; key_version: number } | undefined,
  publicKeys: TPublicKeys,
  reset: boolean,
): KeyRuleResult<{ decision: KeySaveDecision }> {
  if (!existing || existing.key_version === 0) return { ok: true, decision: { kind: 'publish' } };
  const same = existing.public_x25519 === publicKeys.x25519 && existing.public_ed25519 === publicKeys.ed25519;
  if (same) return { ok: true, decision: { kind: 'upgrade' } };
  if (!reset) return refuse(409, E2EE_MESSAGES.keysAlreadyPublished);
  return { ok: true, decision: { kind: 'reset' } };
}

/** What a rotation request says, after its shares passed the strict shape check. */
export interface RotationRequest {
  ringId: string;
  callerId: string;
  epoch: number;
  level: SecurityLevel;
  shares: EpochKeyShare[];
  withheld: string[];
  keyVersions: Record<string, number>;
  /** The membership log's head: every share binds it, and the epoch is created there. */
  logHead: { seq: number; hash: string };
}

/** A version 2 share bound to the log head `head` (as a new epoch's shares must be). */
function boundToHead(share: EpochKeyShare, head: { seq: number; hash: string }): boolean {
  return (
    share.v === 2 &&
    share.logSeq === head.seq &&
    share.logHash === head.hash &&
    share.epochLogSeq === head.seq
  );
}

/**
 * A new epoch reaches exactly every member the log admitted whose published keys are the log's
 * (`members`): one share each (the caller's own included), for this Ring, epoch and level, sent by
 * the caller, bound to the log head, wrapped to the key version the member has now. `withheld`
 * may name only members outside that set (a key change not yet confirmed in the log, a member not
 * admitted): withholding a member who can receive the key is refused, so no one member can cut
 * the others off (issue 24, M2). A member set that differs from the current one answers 409
 * `members_changed` (the caller read it before a change and must read it again).
 */
export function checkRotation(
  request: RotationRequest,
  members: ReadonlyArray<{ id: string; key_version: number }>,
): KeyRuleResult {
  const recipients = new Set<string>();
  for (const share of request.shares) {
    if (
      share.ringId !== request.ringId ||
      share.epoch !== request.epoch ||
      share.level !== request.level ||
      share.senderMemberId !== request.callerId ||
      !boundToHead(share, request.logHead) ||
      recipients.has(share.recipientMemberId)
    )
      return refuse(400, E2EE_MESSAGES.shareInvalid);
    recipients.add(share.recipientMemberId);
  }
  const withheld = new Set(request.withheld);
  if (withheld.size !== request.withheld.length || withheld.has(request.callerId))
    return refuse(400, E2EE_MESSAGES.shareInvalid);
  for (const id of withheld) if (recipients.has(id)) return refuse(400, E2EE_MESSAGES.shareInvalid);
  if (!recipients.has(request.callerId)) return refuse(400, E2EE_MESSAGES.rotationIncomplete);

  const current = new Map(members.map((m) => [m.id, m.key_version]));
  for (const id of recipients)
    if (!current.has(id)) return refuse(409, E2EE_MESSAGES.rotationIncomplete, 'members_changed');
  for (const id of current.keys())
    if (!recipients.has(id)) return refuse(409, E2EE_MESSAGES.rotationIncomplete, 'members_changed');
  for (const id of recipients)
    if (request.keyVersions[id] !== current.get(id))
      return refuse(409, E2EE_MESSAGES.membersChanged, 'members_changed');
  return { ok: true };
}

/** What share.php may store, once each share passed the strict shape check. */
export interface ShareRequest {
  ringId: string;
  callerId: string;
  shares: EpochKeyShare[];
  keyVersions: Record<string, number>;
}

export interface ShareContext {
  /** The Ring's epochs: their levels and the log seq each was created at (null before the log). */
  epochs: ReadonlyMap<number, { level: SecurityLevel; logSeq: number | null }>;
  /** Seq of the membership log's head. */
  logHeadSeq: number;
  /** Epochs whose key the caller holds. */
  held: ReadonlySet<number>;
  /** Active members with published keys. */
  members: ReadonlyMap<string, { key_version: number } & ReadableEpochs>;
}

/**
 * Sharing existing epoch keys: only keys the caller holds (signed by the caller, for this Ring
 * and the epoch's level, version 2 bound to a log position up to the head and to the epoch's own
 * creation point), only to admitted members with the log's keys who may read that epoch, wrapped
 * to their current key version. Duplicates in the request count once.
 */
export function checkShares(
  request: ShareRequest,
  context: ShareContext,
): KeyRuleResult<{ accepted: Array<{ share: EpochKeyShare; keyVersion: number }> }> {
  const accepted: Array<{ share: EpochKeyShare; keyVersion: number }> = [];
  const seen = new Set<string>();
  for (const share of request.shares) {
    if (share.ringId !== request.ringId || share.senderMemberId !== request.callerId)
      return refuse(400, E2EE_MESSAGES.shareInvalid);
    const epoch = context.epochs.get(share.epoch);
    if (!epoch) return refuse(400, E2EE_MESSAGES.epochUnknown);
    if (epoch.level !== share.level) return refuse(400, E2EE_MESSAGES.shareInvalid);
    if (
      share.v !== 2 ||
      epoch.logSeq === null ||
      share.epochLogSeq !== epoch.logSeq ||
      share.logSeq > context.logHeadSeq
    )
      return refuse(400, E2EE_MESSAGES.shareInvalid);
    if (!context.held.has(share.epoch)) return refuse(403, E2EE_MESSAGES.notKeyHolder);
    const member = context.members.get(share.recipientMemberId);
    if (!member || !mayReadEpoch(member, share.epoch)) return refuse(403, E2EE_MESSAGES.shareNotAllowed);
    if (request.keyVersions[share.recipientMemberId] !== member.key_version)
      return refuse(409, E2EE_MESSAGES.membersChanged, 'members_changed');
    const key = `${share.epoch}:${share.recipientMemberId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    accepted.push({ share, keyVersion: member.key_version });
  }
  return { ok: true, accepted };
}

/** Epochs a member may read but holds no key of. */
export function neededEpochs(
  epochs: readonly number[],
  held: ReadonlySet<number>,
  firstReadable: number,
): number[] {
  return epochs.filter((epoch) => epoch >= firstReadable && !held.has(epoch));
}

/**
 * Up to `max` online members to nudge for someone who needs `needed` epochs: those who hold the
 * newest needed epoch first, then those who hold the most of them; ties in random order so the
 * work spreads. Never the member itself.
 */
export function pickKeyHolders(
  needed: readonly number[],
  holdings: ReadonlyArray<{ member_id: string; epoch: number }>,
  online: ReadonlySet<string>,
  exclude: string,
  max = 2,
  random: () => number = Math.random,
): string[] {
  if (needed.length === 0) return [];
  const wanted = new Set(needed);
  const newest = Math.max(...needed);
  const held = new Map<string, Set<number>>();
  for (const { member_id, epoch } of holdings) {
    if (member_id === exclude || !online.has(member_id) || !wanted.has(epoch)) continue;
    const epochs = held.get(member_id) ?? new Set<number>();
    epochs.add(epoch);
    held.set(member_id, epochs);
  }
  return [...held.entries()]
    .map(([id, epochs]) => ({ id, newest: epochs.has(newest) ? 1 : 0, count: epochs.size, tie: random() }))
    .sort((a, b) => b.newest - a.newest || b.count - a.count || a.tie - b.tie)
    .slice(0, max)
    .map((c) => c.id);
}
