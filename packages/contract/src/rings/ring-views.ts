import { z } from 'zod';
import { ENCRYPTION_LEVELS, PROTECTION_LEVELS, RING_MEMBER_STATUSES, RING_ROLES } from '../constants';

export const ZScreenProtection = z.object({
  level: z.enum(PROTECTION_LEVELS),
  enableScreenRecordingDetection: z.boolean(),
  enableDevToolsProtection: z.boolean(),
  enableVisibilityProtection: z.boolean(),
  enableExperimentalFeatures: z.boolean(),
});
export type TScreenProtection = z.infer<typeof ZScreenProtection>;

/**
 * A Ring as its owner sees it (spec 2 §3). The passphrase is not part of it: it never reaches the
 * server, which is what makes the encryption end to end.
 */
export const ZRingCustomerView = z.object({
  id: z.string(),
  name: z.string(),
  plan: z.string(),
  encryptionLevel: z.enum(ENCRYPTION_LEVELS),
  ephemeralMessages: z.boolean(),
  autoDestroyDelay: z.number().int(),
  allowVoice: z.boolean(),
  allowVideo: z.boolean(),
  voiceAdminOnly: z.boolean(),
  maxFileSize: z.number().int(),
  screenProtection: ZScreenProtection,
  storageBytes: z.object({ allocated: z.number(), used: z.number(), remaining: z.number() }),
  membersCount: z.number().int(),
  createdAt: z.string(),
  /** "Partager l’historique avec les nouveaux membres". */
  shareHistory: z.boolean(),
});
export type TRingCustomerView = z.infer<typeof ZRingCustomerView>;

/** A Ring user or invitation as the owner sees it. */
export const ZRingUser = z.object({
  id: z.string(),
  username: z.string(),
  email: z.string().nullable(),
  status: z.enum(RING_MEMBER_STATUSES),
  role: z.enum(RING_ROLES),
  inviteCode: z.string(),
  isUsed: z.boolean(),
  lastSeen: z.string().nullable(),
  /** Has the room open now: « En ligne » instead of its last connection (issue 28). */
  online: z.boolean().default(false),
  createdAt: z.string(),
  /**
   * Where the member stands in the Ring's signed membership log (issue 24): `waiting` (accepted
   * its invitation, no member admitted it yet in the room), `admitted`, `refused` (a member refused
   * it: it cannot be reactivated); null for an unused invitation.
   */
  admission: z.enum(['waiting', 'admitted', 'refused']).nullable(),
  /** A pending invitation's code stops working then (issue 27); null once accepted. */
  inviteExpiresAt: z.string().nullable(),
});
export type TRingUser = z.infer<typeof ZRingUser>;

/** « Invitation expirée »: a pending invitation past its expiry (its code no longer opens the Ring). */
export function isInvitationExpired(
  user: { isUsed: boolean; inviteExpiresAt: string | null },
  nowMs: number,
): boolean {
  return !user.isUsed && user.inviteExpiresAt !== null && Date.parse(user.inviteExpiresAt) <= nowMs;
}

export const ZRingListEntry = z.object({ id: z.string(), name: z.string(), role: z.enum(RING_ROLES) });
