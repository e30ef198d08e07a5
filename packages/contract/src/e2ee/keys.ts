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
    'Vos clés sont déjà publiées : utilisez « Réinitialiser mes clés » pour en créer de nouvelles.',
  noKeysPublished: 'Publiez d’abord vos clés en déverrouillant le Ring.',
  shareInvalid: 'Partage de clé invalide',
  epochUnknown: 'Époque de clé inconnue',
  epochConflict: 'Une autre rotation de clé vient d’avoir lieu : rechargez les clés.',
  rotationIncomplete: 'La nouvelle clé doit être partagée avec chaque membre actif qui a publié ses clés.',
  notKeyHolder: 'Vous ne détenez pas cette clé du Ring.',
  epochStale: 'Une nouvelle clé du Ring est en vigueur : le message doit être chiffré à nouveau.',
  rotationRequired: 'Une nouvelle clé du Ring est nécessaire avant d’envoyer.',
  plaintextRefused: 'Les messages d’un Ring doivent être chiffrés de bout en bout.',
  envelopeMismatch: 'Message chiffré invalide pour cette conversation',
  keysReset: 'Nouvelles clés créées : vos contacts verront votre numéro de sécurité changer.',
} as const;

/** Error codes the client acts on (409 answers of send.php and the key calls). */
export const E2EE_ERROR_CODES = ['epoch_stale', 'rotation_required', 'epoch_conflict'] as const;
export type TE2eeErrorCode = (typeof E2EE_ERROR_CODES)[number];

const b64 = (minBytes: number, maxBytes: number) =>
  z
    .string()
    .max(Math.ceil(maxBytes / 3) * 4, { abort: true })
    .min(Math.ceil(minBytes / 3) * 4)
    .regex(/^[A-Za-z0-9+/]*={0,2}$/);

/** A member key record (spec 2 §3): the identity keys sealed under the passphrase. */
export const ZMemberKeyRecord = z.object({
  kdf_salt_b64: b64(16, 64),
  kdf_iters: z.number().int().min(100_000).max(10_000_000),
  wrapped_dek: b64(64, 4096),
  iv_b64: b64(12, 12),
  hmac_hex: z.string().regex(/^[0-9a-f]{32}$/),
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

/** An epoch key wrapped to one member (HPKE) and signed by its sender (the e2ee share format). */
export const ZEpochKeyShare = z.object({
  v: z.literal(1),
  ringId: z.string().min(1).max(64),
  epoch: z.number().int().min(1).max(1_000_000_000),
  level: z.enum(ENCRYPTION_LEVELS),
  recipientMemberId: z.string().min(1).max(64),
  senderMemberId: z.string().min(1).max(64),
  enc: b64(32, 32),
  ct: b64(16, 512),
  sig: b64(64, 64),
});
export type TEpochKeyShare = z.infer<typeof ZEpochKeyShare>;

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
  currentEpoch: z.number().int().nonnegative(),
  level: z.enum(ENCRYPTION_LEVELS),
  rotationDue: z.boolean(),
  shareHistory: z.boolean(),
  /** First epoch this member may read. */
  firstReadableEpoch: z.number().int().nonnegative(),
  shares: z.array(z.object({ epoch: z.number().int(), senderMemberId: z.string(), share: ZEpochKeyShare })),
  pending: z.array(ZPendingShare),
});
export type TKeyStateResponse = z.infer<typeof ZKeyStateResponse>;

/**
 * POST /api/rings/keys/rotate.php — creates epoch `epoch` (= current + 1) with a share for every
 * active member who has published keys, the caller included. 409 `epoch_conflict` when another
 * rotation won.
 */
export const ZRotateEpochRequest = z.object({
  epoch: z.number().int().min(1),
  level: z.enum(ENCRYPTION_LEVELS),
  shares: z.array(ZEpochKeyShare).min(1).max(2000),
});
export type TRotateEpochRequest = z.infer<typeof ZRotateEpochRequest>;
export const ZRotateEpochResponse = successOf({ epoch: z.number().int() });

/** POST /api/rings/keys/share.php — shares existing epoch keys with members who lack them. */
export const ZShareEpochKeysRequest = z.object({ shares: z.array(ZEpochKeyShare).min(1).max(2000) });
export type TShareEpochKeysRequest = z.infer<typeof ZShareEpochKeysRequest>;
export const ZShareEpochKeysResponse = successOf({ stored: z.number().int().nonnegative() });

/** A member's public keys as rings/info.php lists them (null until the member first unlocks). */
export const ZMemberPublicKeysView = z
  .object({ publicKeys: ZPublicKeys, fingerprint: z.string(), keyVersion: z.number().int() })
  .nullable();
export type TMemberPublicKeysView = z.infer<typeof ZMemberPublicKeysView>;
