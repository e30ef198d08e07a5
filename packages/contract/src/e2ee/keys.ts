import { z } from 'zod';
import { successOf } from '../common';
import { ENCRYPTION_LEVELS } from '../constants';

/**
 * The key layer of a Ring (spec 2 §3 member key record, §4 E2EE states; issue 10). The server
 * stores and serves opaque key material: it checks shapes and sizes, who may read and write what,
 * and the epoch rules. It never sees a passphrase, a private key or a Ring key.
 */

export const E2EE_MESSAGES = {
  passphraseMissing: 'Passphrase manquante',
  unlockFailed: 'Déverrouillage E2EE échoué',
  waitingKeys: 'En attente des clés…',
  active: 'Chiffrement de bout en bout actif',
  recordInvalid: 'Enregistrement de clé invalide',
  publicKeysInvalid: 'Clés publiques invalides',
  keysAlreadyPublished:
    'Vos clés sont déjà publiées\u202f: utilisez «\u202fRéinitialiser mes clés\u202f» pour en créer de nouvelles.',
  noKeysPublished: 'Publiez d’abord vos clés en déverrouillant le Ring.',
  shareInvalid: 'Partage de clé invalide',
  epochUnknown: 'Époque de clé inconnue',
  epochConflict: 'Une autre rotation de clé vient d’avoir lieu\u202f: rechargez les clés.',
  rotationIncomplete: 'La nouvelle clé doit être partagée avec chaque membre actif qui a publié ses clés.',
  notKeyHolder: 'Vous ne détenez pas cette clé du Ring.',
  epochStale: 'Une nouvelle clé du Ring est en vigueur\u202f: le message doit être chiffré à nouveau.',
  rotationRequired: 'Une nouvelle clé du Ring est nécessaire avant d’envoyer.',
  plaintextRefused: 'Les messages d’un Ring doivent être chiffrés de bout en bout.',
  envelopeMismatch: 'Message chiffré invalide pour cette conversation',
  keysReset: 'Nouvelles clés créées\u202f: vos contacts verront votre numéro de sécurité changer.',
  membersChanged: 'Les membres du Ring ou leurs clés ont changé\u202f: rechargez les clés.',
  levelMismatch: 'Le niveau de chiffrement ne correspond pas à celui du Ring.',
  shareNotAllowed: 'Ce membre ne peut pas recevoir cette clé du Ring.',
  keysPublished: 'Clés publiées',
  notAdmitted: 'Un membre du Ring doit d’abord vous admettre.',
} as const;

/**
 * Error codes the client acts on (409 answers of send.php and the key calls, field `code`):
 * `epoch_stale` (send: encrypt again under `currentEpoch`), `rotation_required` (send: create the
 * next epoch first), `epoch_conflict` (rotate: another rotation won, read the state again),
 * `members_changed` (rotate/share: the active members or their key versions changed since the
 * state was read; read it again and retry), `log_head_moved` (log.php: another link was appended
 * first; read the log again), `ephemeral_changed` (send: the envelope's signed ephemeral delay is
 * not the Ring's setting, given as `ephemeralSec`, a number of seconds or null; encrypt again).
 */
export const E2EE_ERROR_CODES = [
  'epoch_stale',
  'rotation_required',
  'epoch_conflict',
  'members_changed',
  'log_head_moved',
  'ephemeral_changed',
] as const;
export type TE2eeErrorCode = (typeof E2EE_ERROR_CODES)[number];

/** The key calls (all Ring-member authenticated). */
export const KEY_API_PATHS = {
  getMemberKey: '/api/rings/get-member-key.php',
  saveMemberKey: '/api/rings/save-member-key.php',
  state: '/api/rings/keys/state.php',
  rotate: '/api/rings/keys/rotate.php',
  share: '/api/rings/keys/share.php',
  /** GET: the Ring's signed membership log (after a seq); POST: appends one link. */
  log: '/api/rings/keys/log.php',
} as const;

const b64 = (minBytes: number, maxBytes: number) =>
  z
    .string()
    .max(Math.ceil(maxBytes / 3) * 4, { abort: true })
    .min(Math.ceil(minBytes / 3) * 4)
    .regex(/^[A-Za-z0-9+/]*={0,2}$/);

const zTag = z.string().regex(/^[0-9a-f]{32}$/);

/**
 * A member key record (spec 2 §3): the identity keys sealed under the passphrase. `kdf` (issue 27):
 * `argon2id` (`kdf_iters` passes over `kdf_mem_kib` KiB) for records sealed now, `pbkdf2-sha256`
 * (absent in older clients' uploads; `kdf_iters` iterations) for older records. `recovery`: the same
 * keys sealed under the member's recovery key (« Clé de secours »), null when none was made. The
 * e2ee package's `validateRecordShape` checks the exact bounds for each KDF.
 */
export const ZMemberKeyRecord = z.object({
  kdf: z.enum(['pbkdf2-sha256', 'argon2id']).optional(),
  kdf_salt_b64: b64(16, 64),
  kdf_iters: z.number().int().min(1).max(10_000_000),
  kdf_mem_kib: z.number().int().min(1).max(1_048_576).nullable().optional(),
  wrapped_dek: b64(64, 4096),
  iv_b64: b64(12, 12),
  hmac_hex: zTag,
  recovery: z
    .object({ salt_b64: b64(16, 16), wrapped_dek: b64(64, 4096), iv_b64: b64(12, 12), hmac_hex: zTag })
    .nullable()
    .optional(),
});
export type TMemberKeyRecord = z.infer<typeof ZMemberKeyRecord>;

/** A member's public identity: raw X25519 and Ed25519 keys, base64. */
export const ZPublicKeys = z.object({ x25519: b64(32, 32), ed25519: b64(32, 32) });
export type TPublicKeys = z.infer<typeof ZPublicKeys>;

/** GET /api/rings/get-member-key.php — the caller's own record only. */
export const ZGetMemberKeyResponse = successOf({
  key: ZMemberKeyRecord.nullable(),
  publicKeys: ZPublicKeys.nullable(),
  keyVersion: z.number().int().nonnegative(),
});
export type TGetMemberKeyResponse = z.infer<typeof ZGetMemberKeyResponse>;

/**
 * POST /api/rings/save-member-key.php — publishes the caller's record and public keys. The same
 * public keys with a new record is an upgrade (iterations, passphrase change); new public keys
 * need `reset: true` ("Réinitialiser mes clés") and drop the caller's key shares.
 */
export const ZSaveMemberKeyRequest = z.object({
  key: ZMemberKeyRecord,
  publicKeys: ZPublicKeys,
  reset: z.boolean().optional(),
});
export type TSaveMemberKeyRequest = z.infer<typeof ZSaveMemberKeyRequest>;
export const ZSaveMemberKeyResponse = successOf({
  keyVersion: z.number().int().positive(),
  fingerprint: z.string(),
});

const shareFields = {
  ringId: z.string().min(1).max(64),
  epoch: z.number().int().min(1).max(1_000_000_000),
  level: z.enum(ENCRYPTION_LEVELS),
  recipientMemberId: z.string().min(1).max(64),
  senderMemberId: z.string().min(1).max(64),
  enc: b64(32, 32),
  ct: b64(16, 512),
  sig: b64(64, 64),
};
const zLogSeq = z.number().int().min(0).max(1_000_000_000);
const zLinkHash = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * An epoch key wrapped to one member (HPKE) and signed by its sender (the e2ee share format).
 * Version 2 binds the membership log: the head the sender signed at (`logSeq`, `logHash`) and the
 * epoch's creation point (`epochLogSeq`); version 1 shares (before the log) are still read.
 */
export const ZEpochKeyShare = z.discriminatedUnion('v', [
  z.object({ v: z.literal(1), ...shareFields }),
  z.object({
    v: z.literal(2),
    ...shareFields,
    logSeq: zLogSeq,
    logHash: zLinkHash,
    epochLogSeq: zLogSeq,
  }),
]);
export type TEpochKeyShare = z.infer<typeof ZEpochKeyShare>;

/**
 * The key version (`keyVersion` of state.php `pending` or rings/info.php `keys`) of each recipient's
 * public key the shares were wrapped to, by member id. A share is stored only when it matches the
 * recipient's current version, so a share wrapped to keys the member has since reset is refused
 * (409 `members_changed`) instead of being stored unreadable.
 */
const zKeyVersions = z
  .record(z.string().min(1).max(64), z.number().int().positive())
  .refine((value) => Object.keys(value).length <= 2000, { message: 'Partage de clé invalide' });

/** A member who lacks epoch keys that the caller holds and may share with them. */
export const ZPendingShare = z.object({
  memberId: z.string(),
  keyVersion: z.number().int(),
  publicKeys: ZPublicKeys,
  epochs: z.array(z.number().int()),
});
export type TPendingShare = z.infer<typeof ZPendingShare>;

/**
 * GET /api/rings/keys/state.php — the Ring's epoch state as the caller sees it: its own shares
 * (from the epoch it joined, or all of them when the owner shares history), whether a rotation is
 * due, and whom it could share keys with.
 */
export const ZKeyStateResponse = successOf({
  ringId: z.string(),
  /** 0 until the first member to unlock creates epoch 1. */
  currentEpoch: z.number().int().nonnegative(),
  /** The Ring's encryption level: the level the next epoch must have. */
  level: z.enum(ENCRYPTION_LEVELS),
  /**
   * The next message needs a new epoch first: no epoch yet, a membership change, the epoch's age
   * (7 days) or message count (per level), or a change of the Ring's level.
   */
  rotationDue: z.boolean(),
  shareHistory: z.boolean(),
  /** This member may read epochs ≥ this number (0: every epoch). */
  firstReadableEpoch: z.number().int().nonnegative(),
  shares: z.array(z.object({ epoch: z.number().int(), senderMemberId: z.string(), share: ZEpochKeyShare })),
  pending: z.array(ZPendingShare),
  /**
   * The Ring's key revision when this state was read (join_ring answers the current one): it moves
   * with every change of epochs, shares, members' keys or membership, level and history setting.
   * A state read past a change may carry the revision before it (then read again), never after.
   */
  keyRevision: z.number().int().nonnegative(),
  /** Seq of the membership log's head (-1: no log yet; the owner's browser starts it). */
  logHeadSeq: z.number().int().min(-1),
  /**
   * The caller lacks the current epoch and no admitted member with keys holds it any more (they
   * left or reset): the caller's browser starts a recovery epoch instead of waiting for nobody.
   */
  currentEpochOrphaned: z.boolean(),
});
export type TKeyStateResponse = z.infer<typeof ZKeyStateResponse>;

/**
 * POST /api/rings/keys/rotate.php — creates epoch `epoch` (= current + 1) with a share for every
 * active member who has published keys (the caller included), except those listed in `withheld`.
 * The caller must hold the current epoch (any member with keys may create epoch 1). 409
 * `epoch_conflict` when another rotation won, `members_changed` when the set of members or their
 * key versions differs from what the caller read.
 */
export const ZRotateEpochRequest = z.object({
  epoch: z.number().int().min(1),
  level: z.enum(ENCRYPTION_LEVELS),
  shares: z.array(ZEpochKeyShare).min(1).max(2000),
  /**
   * Members whose new public keys the rotating member has not confirmed yet (a changed safety
   * number): they get no share from this member and receive the key later from one who confirmed.
   */
  withheld: z.array(z.string().min(1).max(64)).max(2000).default([]),
  keyVersions: zKeyVersions,
});
export type TRotateEpochRequest = z.infer<typeof ZRotateEpochRequest>;
export const ZRotateEpochResponse = successOf({ epoch: z.number().int() });

/** POST /api/rings/keys/share.php — shares existing epoch keys with members who lack them. */
export const ZShareEpochKeysRequest = z.object({
  shares: z.array(ZEpochKeyShare).min(1).max(2000),
  keyVersions: zKeyVersions,
});
export type TShareEpochKeysRequest = z.infer<typeof ZShareEpochKeysRequest>;
export const ZShareEpochKeysResponse = successOf({ stored: z.number().int().nonnegative() });

/** A member's public keys as rings/info.php lists them (null until the member first unlocks). */
export const ZMemberPublicKeysView = z
  .object({ publicKeys: ZPublicKeys, fingerprint: z.string(), keyVersion: z.number().int() })
  .nullable();
export type TMemberPublicKeysView = z.infer<typeof ZMemberPublicKeysView>;

// ---- the signed membership log (issue 24) ---------------------------------------------------------

/**
 * A membership log link as stored and served. The server checks it with the e2ee package's
 * verifier (exact fields, signature, chain, who may make it) before storing it; browsers verify
 * the chain again themselves and trust nothing else about membership.
 */
export const ZMembershipLink = z
  .object({
    v: z.literal(1),
    ringId: z.string().min(1).max(128),
    seq: zLogSeq,
    prev: z.string().max(64),
    type: z.enum([
      'genesis',
      'admit',
      'refuse',
      'deactivate',
      'reactivate',
      'role',
      'key_change',
      'level',
      'reading',
    ]),
    author: z.string().min(1).max(128),
    authorKey: b64(32, 32),
    at: z.string().max(40),
    body: z.record(z.string(), z.unknown()),
    sig: b64(64, 64),
  })
  .strict();
export type TMembershipLink = z.infer<typeof ZMembershipLink>;

/** GET /api/rings/keys/log.php?after=N — links with seq > N (all of them without `after`). */
export const ZMembershipLogQuery = z.object({
  after: z.coerce.number().int().min(-1).max(1_000_000_000).default(-1),
});
export const ZMembershipLogResponse = successOf({
  links: z.array(ZMembershipLink),
  /** Seq of the last link (-1: no log yet). */
  headSeq: z.number().int().min(-1),
});
export type TMembershipLogResponse = z.infer<typeof ZMembershipLogResponse>;

/** POST /api/rings/keys/log.php — appends one link after the current head (409 when it moved). */
export const ZAppendMembershipLinkRequest = z.object({ link: ZMembershipLink });
export const ZAppendMembershipLinkResponse = successOf({ seq: z.number().int(), hash: zLinkHash });

export const MEMBERSHIP_LOG_MESSAGES = {
  invalidLink: 'Changement de membres invalide\u202f: signature ou droits non vérifiés.',
  headMoved: 'Le journal des membres vient de changer\u202f: rechargez-le.',
  memberMismatch: 'Ce changement ne correspond pas au membre tel que le serveur le connaît.',
  notWaiting: 'Ce membre n’attend pas d’admission.',
  refused: 'Votre accès à ce Ring a été refusé.',
  reactivateAccountFirst:
    'Ce membre est désactivé dans l’espace client : réactivez d’abord son compte, puis réactivez-le dans le Ring.',
} as const;
