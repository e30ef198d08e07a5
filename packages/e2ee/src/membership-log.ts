import {
  type Bytes,
  assertExactKeys,
  assertWireId,
  encodeFields,
  fromBase64,
  readBase64Field,
  toBase64,
  toHex,
} from './encoding';
import { E2eeError } from './errors';
import { importVerifyKey, samePublicIdentity, type PublicIdentity } from './identity';
import { type SecurityLevel, isSecurityLevel } from './levels';
import { signDetached, verifyDetached } from './signing';

/**
 * The signed membership log of a Ring (issue 24): an append-only, hash-chained list of links, each
 * signed by a member entitled to make it. Who is in the Ring, with which keys, in which role, and
 * the Ring's level are what this log says — never what an API field says. Browsers verify the
 * whole chain (or the part after a state they verified before) before wrapping any key; the server
 * stores and serves the links, and verifies them with this same code before storing one, but
 * cannot forge, reorder or drop the middle of the chain without every browser noticing.
 *
 * Anchors: Keybase team sigchains (links signed by admins, chained by hash, checked by every
 * client) and MLS (only members change the roster, through signed commits).
 *
 * A link: `{ v, ringId, seq, prev, type, author, authorKey, at, body, sig }`.
 * - `seq` counts from 0 (the genesis); `prev` is the previous link's hash (hex SHA-256), "" for
 *   the genesis.
 * - `author` is the member who signed, `authorKey` the Ed25519 key it signed with: it must be the
 *   author's current key in the log at that point (a key replaced by a key change signs nothing
 *   after it).
 * - `sig` is Ed25519 over the canonical encoding of every other field (domain
 *   `securering/membership-link/v1`).
 * - The link's hash is SHA-256 over the canonical encoding and the signature.
 */

export const MEMBERSHIP_LOG_VERSION = 1;
const SIGNATURE_DOMAIN = 'securering/membership-link/v1';
const HASH_DOMAIN = 'securering/membership-link-hash/v1';
/** Usernames in the log: what the Ring shows (spec 2: 3 to 50 characters), with margin. */
const MAX_USERNAME_LENGTH = 64;
const MAX_INVITATION_LENGTH = 128;

export const MEMBER_ROLES = ['owner', 'admin', 'member'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export const MEMBERSHIP_LINK_TYPES = [
  'genesis',
  'admit',
  'refuse',
  'deactivate',
  'reactivate',
  'role',
  'key_change',
  'level',
  'reading',
] as const;
export type MembershipLinkType = (typeof MEMBERSHIP_LINK_TYPES)[number];

/** A member as a link names it: id, the name shown, the public keys vouched for. */
export interface LoggedIdentity {
  id: string;
  username: string;
  keys: PublicIdentity;
}

/** The change a link makes, by type. */
export type MembershipChange =
  | { type: 'genesis'; body: { member: LoggedIdentity; level: SecurityLevel } }
  | {
      type: 'admit';
      body: {
        member: LoggedIdentity;
        role: 'admin' | 'member';
        /** The invitation the newcomer used (its member id on the server), for the record. */
        invitation: string;
        /** The admitting member shares earlier epochs (« Partager l'historique »). */
        shareHistory: boolean;
        /** The admitting member shares the keys of existing files (« Donner accès aux fichiers existants »). */
        shareFiles: boolean;
      };
    }
  | { type: 'refuse'; body: { memberId: string; username: string } }
  | { type: 'deactivate'; body: { memberId: string } }
  | { type: 'reactivate'; body: { memberId: string } }
  | { type: 'role'; body: { memberId: string; role: 'admin' | 'member' } }
  | { type: 'key_change'; body: { memberId: string; keys: PublicIdentity } }
  | { type: 'level'; body: { level: SecurityLevel } }
  | { type: 'reading'; body: ReadingSettings };

/**
 * Typing indicators and read receipts of a Ring (issue 29): off until the owner signs them on (a
 * `reading` link). Browsers emit typing and receipt events only when the verified log says so,
 * so a server flipping a flag cannot make them reveal when their members type or read.
 */
export interface ReadingSettings {
  typing: boolean;
  receipts: boolean;
}
/** What a log without a `reading` link says: both off. */
export const READING_OFF: Readonly<ReadingSettings> = Object.freeze({ typing: false, receipts: false });

/** A link as stored and served. */
export type MembershipLink = {
  v: typeof MEMBERSHIP_LOG_VERSION;
  ringId: string;
  seq: number;
  prev: string;
  author: string;
  authorKey: string;
  at: string;
} & MembershipChange & { sig: string };

/** Keys a member held before a key change, and the links between which they were current. */
export interface FormerKeys {
  keys: PublicIdentity;
  /** Seq of the link that set them (admission, genesis or an earlier key change). */
  fromSeq: number;
  /** Seq of the key change that replaced them. */
  untilSeq: number;
}

/** A member of the Ring as the verified log says. */
export interface LogMember {
  id: string;
  username: string;
  role: MemberRole;
  /** The member's current keys: the only ones to wrap keys to or to verify new content with. */
  keys: PublicIdentity;
  /** Seq of the link that set `keys`. */
  keysSince: number;
  /** Earlier keys, newest first: they verify only what was signed before they were replaced. */
  formerKeys: FormerKeys[];
  status: 'active' | 'deactivated';
  /** Seq of the link that set `status` (the admission, or the last deactivation or reactivation). */
  statusSince: number;
  /** Seq of the genesis or admission link, and who signed it. */
  admittedSeq: number;
  admittedBy: string;
  shareHistory: boolean;
  shareFiles: boolean;
}

/** What a verified log says, up to its head. */
export interface MembershipState {
  ringId: string;
  level: SecurityLevel;
  /** Typing indicators and read receipts as the owner last signed them (absent: both off). */
  reading?: ReadingSettings;
  /** Seq and hash of the last verified link. */
  head: { seq: number; hash: string };
  genesisHash: string;
  /** Hash of every link, by seq (what a share's `logHash` is checked against). */
  hashes: readonly string[];
  members: ReadonlyMap<string, LogMember>;
  /** Newcomers refused, by member id (never admitted afterwards). */
  refused: ReadonlyMap<string, { username: string; seq: number }>;
}

/** Why a link is not valid where it stands. */
function invalid(seq: unknown, reason: string): E2eeError {
  return new E2eeError('unverifiable', `membership log link ${String(seq)}: ${reason}`);
}

// ---- canonical encoding -------------------------------------------------------------------------

/** JSON with object keys sorted at every level: one text for one value. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    // Default sort: UTF-16 code unit order, as `a < b`.
    const keys = Object.keys(object).sort();
    let out = '';
    for (const key of keys) {
      const item = object[key];
      if (item === undefined) continue;
      out += `${out === '' ? '' : ','}${JSON.stringify(key)}:${canonicalJson(item)}`;
    }
    return `{${out}}`;
  }
  return JSON.stringify(value);
}

function signedBytes(link: Omit<MembershipLink, 'sig'>): Bytes {
  return encodeFields(
    String(link.v),
    link.ringId,
    String(link.seq),
    link.prev,
    link.type,
    link.author,
    link.authorKey,
    link.at,
    canonicalJson(link.body),
  );
}

/** The link's hash (hex SHA-256): what the next link names as `prev`. */
export function hashLink(link: MembershipLink): Promise<string> {
  return linkHash({ link, bytes: signedBytes(link), signature: fromBase64(link.sig) });
}

// ---- shape ---------------------------------------------------------------------------------------

function checkKeys(value: unknown, what: string): PublicIdentity {
  assertExactKeys(value, ['x25519', 'ed25519'], what);
  readBase64Field(value.x25519, `${what}.x25519`, 32);
  readBase64Field(value.ed25519, `${what}.ed25519`, 32);
  return { x25519: value.x25519 as string, ed25519: value.ed25519 as string };
}

function checkUsername(value: unknown, what: string): string {
  // Code points are at most UTF-16 units: count them only for a long text.
  if (
    typeof value !== 'string' ||
    value.trim() === '' ||
    (value.length > MAX_USERNAME_LENGTH && [...value].length > MAX_USERNAME_LENGTH)
  )
    throw new E2eeError('invalid_format', `${what}: invalid username`);
  return value;
}

function checkIdentity(value: unknown, what: string): LoggedIdentity {
  assertExactKeys(value, ['id', 'username', 'keys'], what);
  assertWireId(value.id, `${what}.id`);
  return { id: value.id, username: checkUsername(value.username, what), keys: checkKeys(value.keys, what) };
}

function checkBoolean(value: unknown, what: string): boolean {
  if (typeof value !== 'boolean') throw new E2eeError('invalid_format', `${what}: expected a boolean`);
  return value;
}

function checkAssignableRole(value: unknown, what: string): 'admin' | 'member' {
  if (value !== 'admin' && value !== 'member') throw new E2eeError('invalid_format', `${what}: invalid role`);
  return value;
}

function checkLevel(value: unknown, what: string): SecurityLevel {
  if (!isSecurityLevel(value)) throw new E2eeError('invalid_format', `${what}: invalid level`);
  return value;
}

/** Checks the body's exact shape for its type (no extra field, sizes, formats). */
function checkBody(type: MembershipLinkType, body: unknown): void {
  switch (type) {
    case 'genesis':
      assertExactKeys(body, ['member', 'level'], 'genesis');
      checkIdentity(body.member, 'genesis.member');
      checkLevel(body.level, 'genesis');
      return;
    case 'admit':
      assertExactKeys(body, ['member', 'role', 'invitation', 'shareHistory', 'shareFiles'], 'admit');
      checkIdentity(body.member, 'admit.member');
      checkAssignableRole(body.role, 'admit');
      if (typeof body.invitation !== 'string' || body.invitation.length > MAX_INVITATION_LENGTH)
        throw new E2eeError('invalid_format', 'admit.invitation: invalid');
      checkBoolean(body.shareHistory, 'admit.shareHistory');
      checkBoolean(body.shareFiles, 'admit.shareFiles');
      return;
    case 'refuse':
      assertExactKeys(body, ['memberId', 'username'], 'refuse');
      assertWireId(body.memberId, 'refuse.memberId');
      checkUsername(body.username, 'refuse');
      return;
    case 'deactivate':
    case 'reactivate':
      assertExactKeys(body, ['memberId'], type);
      assertWireId(body.memberId, `${type}.memberId`);
      return;
    case 'role':
      assertExactKeys(body, ['memberId', 'role'], 'role');
      assertWireId(body.memberId, 'role.memberId');
      checkAssignableRole(body.role, 'role');
      return;
    case 'key_change':
      assertExactKeys(body, ['memberId', 'keys'], 'key_change');
      assertWireId(body.memberId, 'key_change.memberId');
      checkKeys(body.keys, 'key_change.keys');
      return;
    case 'level':
      assertExactKeys(body, ['level'], 'level');
      checkLevel(body.level, 'level');
      return;
    case 'reading':
      assertExactKeys(body, ['typing', 'receipts'], 'reading');
      checkBoolean(body.typing, 'reading.typing');
      checkBoolean(body.receipts, 'reading.receipts');
      return;
  }
}

/**
 * Parses an untrusted link (a server answer): exact fields, formats and sizes. Throws
 * `invalid_format`; signatures and rules are checked by {@link verifyMembershipLog}.
 */
export function parseMembershipLink(value: unknown): MembershipLink {
  assertExactKeys(
    value,
    ['v', 'ringId', 'seq', 'prev', 'type', 'author', 'authorKey', 'at', 'body', 'sig'],
    'membership link',
  );
  if (value.v !== MEMBERSHIP_LOG_VERSION) throw new E2eeError('invalid_format', 'membership link: version');
  assertWireId(value.ringId, 'ringId');
  if (typeof value.seq !== 'number' || !Number.isInteger(value.seq) || value.seq < 0 || value.seq > 1e9)
    throw new E2eeError('invalid_format', 'membership link: seq');
  if (typeof value.prev !== 'string' || !(value.prev === '' || /^[0-9a-f]{64}$/.test(value.prev)))
    throw new E2eeError('invalid_format', 'membership link: prev');
  if (!MEMBERSHIP_LINK_TYPES.includes(value.type as MembershipLinkType))
    throw new E2eeError('invalid_format', 'membership link: type');
  assertWireId(value.author, 'author');
  readBase64Field(value.authorKey, 'authorKey', 32);
  if (typeof value.at !== 'string' || value.at.length > 40 || Number.isNaN(Date.parse(value.at)))
    throw new E2eeError('invalid_format', 'membership link: at');
  checkBody(value.type as MembershipLinkType, value.body);
  readBase64Field(value.sig, 'sig', 64);
  return value as unknown as MembershipLink;
}

// ---- rules ---------------------------------------------------------------------------------------

interface MutableState {
  ringId: string;
  level: SecurityLevel;
  reading: ReadingSettings;
  head: { seq: number; hash: string };
  genesisHash: string;
  hashes: string[];
  members: Map<string, LogMember>;
  refused: Map<string, { username: string; seq: number }>;
  /** Every public key (both halves) the log ever named: a key is never given to a second member. */
  usedKeys: Set<string>;
}

function keysOf(member: LogMember): string[] {
  return [member.keys, ...member.formerKeys.map((k) => k.keys)].flatMap((k) => [k.ed25519, k.x25519]);
}

function copyState(state: MembershipState): MutableState {
  const members = new Map([...state.members].map(([id, m]) => [id, { ...m, formerKeys: [...m.formerKeys] }]));
  return {
    ringId: state.ringId,
    level: state.level,
    reading: { ...(state.reading ?? READING_OFF) },
    head: { ...state.head },
    genesisHash: state.genesisHash,
    hashes: [...state.hashes],
    members,
    refused: new Map(state.refused),
    usedKeys: new Set([...members.values()].flatMap(keysOf)),
  };
}

/** The state as callers see it (without the verifier's own index). */
function frozen(state: MutableState): MembershipState {
  const { usedKeys: _index, ...out } = state;
  return out;
}

function keysInUse(state: MutableState, keys: PublicIdentity): boolean {
  return state.usedKeys.has(keys.ed25519) || state.usedKeys.has(keys.x25519);
}

function useKeys(state: MutableState, keys: PublicIdentity): void {
  state.usedKeys.add(keys.ed25519);
  state.usedKeys.add(keys.x25519);
}

/**
 * Applies one link whose signature is already checked to `state` (mutated), or throws why the
 * author may not make it there. Every rule of who may change what lives here.
 */
function applyRules(state: MutableState, link: MembershipLink, hash: string): void {
  const seq = link.seq;
  if (link.ringId !== state.ringId) throw invalid(seq, 'another Ring');
  if (seq !== state.head.seq + 1) throw invalid(seq, `expected seq ${state.head.seq + 1}`);
  if (link.prev !== state.head.hash) throw invalid(seq, 'does not follow the previous link');
  if (link.type === 'genesis') throw invalid(seq, 'a second genesis');
  const author = state.members.get(link.author);
  if (!author || author.status !== 'active') throw invalid(seq, 'author is not an active member');
  if (link.authorKey !== author.keys.ed25519) throw invalid(seq, "not signed with the author's current key");
  const leads = author.role === 'owner' || author.role === 'admin';

  switch (link.type) {
    case 'admit': {
      const { member, role } = link.body;
      if (!leads) throw invalid(seq, 'only the owner or a Ring admin admits');
      if (role === 'admin' && author.role !== 'owner') throw invalid(seq, 'only the owner admits an admin');
      if (state.members.has(member.id)) throw invalid(seq, 'already a member');
      if (state.refused.has(member.id)) throw invalid(seq, 'refused before');
      if (keysInUse(state, member.keys)) throw invalid(seq, 'keys already used by another member');
      useKeys(state, member.keys);
      state.members.set(member.id, {
        id: member.id,
        username: member.username,
        role,
        keys: member.keys,
        keysSince: seq,
        formerKeys: [],
        status: 'active',
        statusSince: seq,
        admittedSeq: seq,
        admittedBy: author.id,
        shareHistory: link.body.shareHistory,
        shareFiles: link.body.shareFiles,
      });
      break;
    }
    case 'refuse': {
      if (!leads) throw invalid(seq, 'only the owner or a Ring admin refuses');
      const { memberId, username } = link.body;
      if (state.members.has(memberId)) throw invalid(seq, 'already a member');
      if (state.refused.has(memberId)) throw invalid(seq, 'already refused');
      state.refused.set(memberId, { username, seq });
      break;
    }
    case 'deactivate': {
      const target = state.members.get(link.body.memberId);
      if (!target || target.status !== 'active') throw invalid(seq, 'not an active member');
      if (target.role === 'owner') throw invalid(seq, 'the owner cannot be deactivated');
      const self = target.id === author.id;
      const allowed =
        self || author.role === 'owner' || (author.role === 'admin' && target.role === 'member');
      if (!allowed) throw invalid(seq, 'may not deactivate this member');
      target.status = 'deactivated';
      target.statusSince = seq;
      break;
    }
    case 'reactivate': {
      const target = state.members.get(link.body.memberId);
      if (!target || target.status !== 'deactivated') throw invalid(seq, 'not a deactivated member');
      if (!(author.role === 'owner' || (author.role === 'admin' && target.role === 'member')))
        throw invalid(seq, 'may not reactivate this member');
      target.status = 'active';
      target.statusSince = seq;
      break;
    }
    case 'role': {
      if (author.role !== 'owner') throw invalid(seq, 'only the owner changes roles');
      const target = state.members.get(link.body.memberId);
      if (!target || target.status !== 'active') throw invalid(seq, 'not an active member');
      if (target.role === 'owner') throw invalid(seq, "the owner's role does not change");
      if (target.role === link.body.role) throw invalid(seq, 'same role');
      target.role = link.body.role;
      break;
    }
    case 'key_change': {
      const target = state.members.get(link.body.memberId);
      if (!target || target.status !== 'active') throw invalid(seq, 'not an active member');
      // The member with its old key, or the owner or an admin who compared the new safety number.
      if (target.id !== author.id && !leads) throw invalid(seq, 'may not change this key');
      const { keys } = link.body;
      if (samePublicIdentity(keys, target.keys)) throw invalid(seq, 'same keys');
      if (keysInUse(state, keys)) throw invalid(seq, 'keys already used by another member');
      useKeys(state, keys);
      target.formerKeys = [
        { keys: target.keys, fromSeq: target.keysSince, untilSeq: seq },
        ...target.formerKeys,
      ];
      target.keys = keys;
      target.keysSince = seq;
      break;
    }
    case 'level': {
      if (author.role !== 'owner') throw invalid(seq, 'only the owner changes the level');
      if (link.body.level === state.level) throw invalid(seq, 'same level');
      state.level = link.body.level;
      break;
    }
    case 'reading': {
      if (author.role !== 'owner')
        throw invalid(seq, 'only the owner changes typing indicators and read receipts');
      const { typing, receipts } = link.body;
      if (typing === state.reading.typing && receipts === state.reading.receipts)
        throw invalid(seq, 'same reading settings');
      state.reading = { typing, receipts };
      break;
    }
  }
  state.head = { seq, hash };
  state.hashes.push(hash);
}

function genesisState(link: MembershipLink, hash: string, ringId: string): MutableState {
  if (link.type !== 'genesis' || link.seq !== 0) throw invalid(link.seq, 'the log must start with a genesis');
  if (link.ringId !== ringId) throw invalid(0, 'another Ring');
  if (link.prev !== '') throw invalid(0, 'a genesis follows nothing');
  const { member, level } = link.body;
  if (link.author !== member.id || link.authorKey !== member.keys.ed25519)
    throw invalid(0, 'the genesis is signed by the owner it names');
  return {
    ringId,
    level,
    reading: { ...READING_OFF },
    head: { seq: 0, hash },
    genesisHash: hash,
    hashes: [hash],
    members: new Map([
      [
        member.id,
        {
          id: member.id,
          username: member.username,
          role: 'owner',
          keys: member.keys,
          keysSince: 0,
          formerKeys: [],
          status: 'active',
          statusSince: 0,
          admittedSeq: 0,
          admittedBy: member.id,
          shareHistory: true,
          shareFiles: true,
        },
      ],
    ]),
    refused: new Map(),
    usedKeys: new Set([member.keys.ed25519, member.keys.x25519]),
  };
}

// ---- verification --------------------------------------------------------------------------------

/** Imported verify keys by base64, across calls (a Ring's log reuses a few keys many times). */
const verifyKeyCache = new Map<string, Promise<CryptoKey>>();
function verifyKeyOf(ed25519: string): Promise<CryptoKey> {
  let key = verifyKeyCache.get(ed25519);
  if (!key) {
    if (verifyKeyCache.size > 4096) verifyKeyCache.clear();
    key = importVerifyKey(ed25519);
    key.catch(() => verifyKeyCache.delete(ed25519));
    verifyKeyCache.set(ed25519, key);
  }
  return key;
}

/** A parsed link with its canonical bytes and signature, encoded and decoded once. */
interface PreparedLink {
  link: MembershipLink;
  bytes: Bytes;
  signature: Bytes;
}

function prepareLink(value: unknown): PreparedLink {
  const link = parseMembershipLink(value);
  return { link, bytes: signedBytes(link), signature: fromBase64(link.sig) };
}

async function linkHash({ bytes, signature }: PreparedLink): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest(
    'SHA-256',
    encodeFields(HASH_DOMAIN, bytes, signature),
  );
  return toHex(new Uint8Array(digest));
}

function linkSigned({ link, bytes, signature }: PreparedLink): Promise<boolean> {
  return verifyKeyOf(link.authorKey).then(
    (key) => verifyDetached(key, SIGNATURE_DOMAIN, bytes, signature),
    () => false,
  );
}

/** A head of the log (seq and hash) that this client verified before, signatures included. */
export interface VerifiedHead {
  seq: number;
  hash: string;
}

/**
 * Verifies `links` and returns what the log says. Without `from`, `links` is the whole log from
 * its genesis; with `from` (a state this browser verified before), `links` continue it from
 * `from.head.seq + 1`. Any forged, reordered, missing or unauthorised link throws `unverifiable`
 * naming its seq; a malformed one throws `invalid_format`. Hashes and signatures are computed
 * first (in parallel), the rules in order.
 *
 * `verifiedHead`, a head this client verified before with every signature (kept where the server
 * cannot write, see {@link signLogCheckpoint}), spares the signature checks of the links up to it
 * — the costly part of opening a room — when the link at `verifiedHead.seq` hashes to
 * `verifiedHead.hash`: that hash fixes the bytes of the link, hence its `prev`, and the rules
 * check every `prev` against the hash computed here, so the links before it are the ones verified
 * then. Anything else (another hash, a shorter log) is verified in full, as without it. The
 * rules run on every link either way: the result is the state a full verification gives.
 */
export async function verifyMembershipLog(
  input: readonly unknown[],
  options: { ringId: string; from?: MembershipState; verifiedHead?: VerifiedHead },
): Promise<MembershipState> {
  if (!options.from && input.length === 0) throw new E2eeError('missing_key', 'empty membership log');
  const prepared = input.map(prepareLink);
  const hashes = await Promise.all(prepared.map(linkHash));
  const head = options.verifiedHead;
  const verifiedUntil = head
    ? prepared.findIndex(({ link }, index) => link.seq === head.seq && hashes[index] === head.hash)
    : -1;
  const signed = await Promise.all(
    prepared.map((link, index) => (index <= verifiedUntil ? true : linkSigned(link))),
  );
  let state: MutableState | undefined = options.from ? copyState(options.from) : undefined;
  if (state && state.ringId !== options.ringId) throw invalid('-', 'a state of another Ring');
  for (const [index, { link }] of prepared.entries()) {
    if (!signed[index]) throw invalid(link.seq, 'bad signature');
    const hash = hashes[index]!;
    if (!state) state = genesisState(link, hash, options.ringId);
    else applyRules(state, link, hash);
  }
  return frozen(state!);
}

// ---- checkpoints -------------------------------------------------------------------------------

const CHECKPOINT_DOMAIN = 'securering/membership-checkpoint/v1';

/**
 * The head of a Ring's log a member's browser verified (signatures included), as it keeps it to
 * resume from (`verifiedHead`) and to notice a server serving another history later.
 */
export interface LogHeadCheckpoint {
  ringId: string;
  memberId: string;
  genesisHash: string;
  headSeq: number;
  headHash: string;
}

function checkpointBytes(checkpoint: LogHeadCheckpoint): Bytes {
  return encodeFields(
    checkpoint.ringId,
    checkpoint.memberId,
    checkpoint.genesisHash,
    String(checkpoint.headSeq),
    checkpoint.headHash,
  );
}

/**
 * The member's signature (base64) over a checkpoint its browser verified: only a checkpoint this
 * member signed may spare signature checks, so a stored head the member did not vouch for
 * (written by anyone else, or signed with keys replaced since) only leads to a full verification.
 */
export async function signLogCheckpoint(
  checkpoint: LogHeadCheckpoint,
  signingKey: CryptoKey,
): Promise<string> {
  return toBase64(await signDetached(signingKey, CHECKPOINT_DOMAIN, checkpointBytes(checkpoint)));
}

/**
 * The verified head a signed checkpoint vouches for, when `sig` is the member's signature with
 * its current key `ed25519` (base64); undefined for anything else (never throws).
 */
export async function openLogCheckpoint(
  checkpoint: LogHeadCheckpoint,
  sig: string,
  ed25519: string,
): Promise<VerifiedHead | undefined> {
  try {
    if (!Number.isInteger(checkpoint.headSeq) || checkpoint.headSeq < 0) return undefined;
    if (!/^[0-9a-f]{64}$/.test(checkpoint.headHash)) return undefined;
    const signature = readBase64Field(sig, 'checkpoint.sig', 64);
    const key = await verifyKeyOf(ed25519);
    if (!(await verifyDetached(key, CHECKPOINT_DOMAIN, checkpointBytes(checkpoint), signature)))
      return undefined;
    return { seq: checkpoint.headSeq, hash: checkpoint.headHash };
  } catch {
    return undefined;
  }
}

// ---- making links --------------------------------------------------------------------------------

/** The member signing a link: its id and Ed25519 key pair (private key non-extractable is fine). */
export interface LinkSigner {
  memberId: string;
  signingKey: CryptoKey;
  /** Base64 of the public Ed25519 key that `signingKey` matches. */
  ed25519: string;
}

async function sign(unsigned: Omit<MembershipLink, 'sig'>, signer: LinkSigner): Promise<MembershipLink> {
  const sig = await signDetached(signer.signingKey, SIGNATURE_DOMAIN, signedBytes(unsigned));
  return { ...unsigned, sig: toBase64(sig) } as MembershipLink;
}

/** The first link of a Ring's log, signed by its owner, naming the owner's keys and the level. */
export async function createGenesis(options: {
  ringId: string;
  owner: LoggedIdentity;
  level: SecurityLevel;
  signer: LinkSigner;
  at?: Date;
}): Promise<MembershipLink> {
  const link = await sign(
    {
      v: MEMBERSHIP_LOG_VERSION,
      ringId: options.ringId,
      seq: 0,
      prev: '',
      type: 'genesis',
      author: options.signer.memberId,
      authorKey: options.signer.ed25519,
      at: (options.at ?? new Date()).toISOString(),
      body: { member: options.owner, level: options.level },
    },
    options.signer,
  );
  // Refuse to hand out a genesis the verifier would reject (wrong signer, bad keys).
  genesisState(parseMembershipLink(link), '', options.ringId);
  return link;
}

/**
 * The next link after `state`'s head, signed by `signer`. Throws `unverifiable` when the rules
 * do not allow it (the same check every browser and the server make), so no invalid link leaves.
 */
export async function createLink(
  state: MembershipState,
  change: Exclude<MembershipChange, { type: 'genesis' }>,
  signer: LinkSigner,
  at: Date = new Date(),
): Promise<MembershipLink> {
  const link = await sign(
    {
      v: MEMBERSHIP_LOG_VERSION,
      ringId: state.ringId,
      seq: state.head.seq + 1,
      prev: state.head.hash,
      author: signer.memberId,
      authorKey: signer.ed25519,
      at: at.toISOString(),
      ...change,
    } as Omit<MembershipLink, 'sig'>,
    signer,
  );
  applyRules(copyState(state), parseMembershipLink(link), '');
  return link;
}

// ---- reading the state ---------------------------------------------------------------------------

/** Active members of the verified log. */
export function activeLogMembers(state: MembershipState): LogMember[] {
  return [...state.members.values()].filter((m) => m.status === 'active');
}

/** Whether `memberId` may admit, refuse and confirm key changes (owner or Ring admin, active). */
export function mayAdmit(state: MembershipState, memberId: string): boolean {
  const member = state.members.get(memberId);
  return member?.status === 'active' && (member.role === 'owner' || member.role === 'admin');
}

/**
 * The Ed25519 keys (base64) that verify what `memberId` signed at log position `atSeq` (the head
 * when it signed): its key current then. Undefined `atSeq`: its current key only.
 */
export function signingKeysAt(state: MembershipState, memberId: string, atSeq?: number): string[] {
  const member = state.members.get(memberId);
  if (!member) return [];
  if (atSeq === undefined || atSeq >= member.keysSince) return [member.keys.ed25519];
  const former = member.formerKeys.find((k) => atSeq >= k.fromSeq && atSeq < k.untilSeq);
  return former ? [former.keys.ed25519] : [];
}

/**
 * Seq of the last link that changed who may read new messages (an admission, a deactivation, a
 * reactivation, a key change): an epoch created before it is not used to send again (admission
 * starts a new epoch; a removed member or a replaced key reads nothing new).
 */
export function lastReadersChange(state: MembershipState): number {
  let last = 0;
  for (const member of state.members.values()) {
    last = Math.max(last, member.admittedSeq, member.keysSince, member.statusSince);
  }
  return last;
}

/**
 * The Ed25519 keys (base64) of `memberId` that were current at some point from log position
 * `fromSeq` on (its current key, and keys it replaced after `fromSeq`): what may have signed
 * content of an epoch created at `fromSeq`. Undefined `fromSeq` (content from before the log):
 * every key the log knows for it. A key replaced before `fromSeq` verifies nothing newer.
 */
export function signingKeysFrom(state: MembershipState, memberId: string, fromSeq?: number): string[] {
  const member = state.members.get(memberId);
  if (!member) return [];
  const former = member.formerKeys.filter((k) => fromSeq === undefined || k.untilSeq > fromSeq);
  return [member.keys.ed25519, ...former.map((k) => k.keys.ed25519)];
}
