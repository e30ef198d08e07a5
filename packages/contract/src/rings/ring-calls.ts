import { z } from 'zod';
import { ENCRYPTION_LEVELS, PROTECTION_LEVELS, RING_ROLES } from '../constants';
import { successOf, zBoundedString, zLooseBoolean } from '../common';
import { ACCOUNT_MESSAGES, EMAIL_MAX_LENGTH, isEmailAddress } from '../customers/validation';
import { MAX_FILE_SIZE_MB, normaliseAutoDestroyDelay } from './protection';
import { ZMemberPublicKeysView } from '../e2ee/keys';
import { ZRingCustomerView, ZRingUser } from './ring-views';

export const RING_MESSAGES = {
  nameRequired: 'Nom du ring requis',
  ringLimit: 'Limite de rings atteinte',
  subscriptionRequired: 'Un abonnement actif est nécessaire pour gérer vos Rings',
  ringNotFound: 'Ring introuvable',
  noRingSelected: 'Aucun ring sélectionné',
  usernameRequired: 'Veuillez entrer un nom d’utilisateur',
  usernameTaken: 'Ce nom d’utilisateur est déjà utilisé dans ce Ring',
  userLimit: (max: number) => `Votre plan limite à ${max} utilisateurs`,
  userNotFound: 'Utilisateur introuvable',
  cannotRemoveUsed: 'Impossible de supprimer un utilisateur qui a déjà rejoint le Ring',
  cannotRemoveOwner: 'Le propriétaire du Ring ne peut pas être supprimé',
  invitationCreated: 'Invitation créée',
  invitationSent: 'Invitation créée et envoyée par email',
  userRemoved: 'Utilisateur supprimé',
  userDeactivated: 'Utilisateur désactivé',
  userReactivated: 'Utilisateur réactivé',
  cannotDeactivateOwner: 'Le propriétaire du Ring ne peut pas être désactivé',
  cannotDeactivateInvitation: 'Une invitation non utilisée ne se désactive pas\u202f: supprimez-la.',
  cannotReactivateRefused:
    'Un membre du Ring a refusé l’admission de cet utilisateur\u202f: envoyez-lui une nouvelle invitation.',
  invalidUserStatus: 'Statut invalide',
  encryptionNotInPlan: 'Ce niveau de chiffrement n’est pas inclus dans votre plan',
  ephemeralNotInPlan: 'Les messages éphémères ne sont pas inclus dans votre plan',
  videoNotInPlan: 'La vidéo n’est pas incluse dans votre abonnement',
  voiceNotInPlan: 'Les appels vocaux ne sont pas inclus dans votre plan',
  maxFileSizeOverPlan: (max: number) => `Taille maximale\u202f: entre 1 et ${max} Mo avec votre plan`,
  settingsSaved: 'Paramètres du Ring enregistrés',
  ringCreated: 'Ring créé',
  invalidInvite: 'Code d’invitation invalide ou déjà utilisé',
  invitationExpired: 'Invitation expirée\u202f: demandez au propriétaire du Ring de vous la renvoyer.',
  invitationResent: 'Invitation renouvelée et renvoyée par email',
  invitationRenewed: 'Invitation renouvelée',
  cannotResendUsed: 'Cette invitation a déjà été acceptée.',
  fieldsRequired: 'Remplissez le code, nom et mot de passe.',
  passwordTooShort: 'Mot de passe trop court\u202f: 8 caractères minimum.',
  invalidCredentials: 'Identifiants incorrects',
  ringSuspended: 'Ce Ring est suspendu\u202f: l’abonnement de son propriétaire n’est plus actif.',
  loggedOut: 'Déconnecté',
} as const;

const ringId = z.string().trim().min(1, RING_MESSAGES.noRingSelected).max(64);
const optionalEmail = z
  .string()
  .trim()
  .max(EMAIL_MAX_LENGTH, { message: ACCOUNT_MESSAGES.emailInvalid, abort: true })
  .nullish()
  .transform((v) => (v ? v.toLowerCase() : null))
  .refine((v) => v === null || isEmailAddress(v), ACCOUNT_MESSAGES.emailInvalid);
const username = z
  .string()
  .default('')
  .transform((v) => v.trim())
  .pipe(
    z.string().min(1, RING_MESSAGES.usernameRequired).max(40, 'Nom d’utilisateur : 40 caractères maximum'),
  );

/** GET /api/customer/rings.php → list; ?ring_id= → detail. */
export const ZRingsListResponse = successOf({ data: z.array(ZRingCustomerView) });
export const ZRingDetailResponse = successOf({ data: ZRingCustomerView });

/** POST /api/customer/rings.php */
export const ZCreateRingRequest = z.object({
  name: z
    .string()
    .default('')
    .transform((v) => v.trim())
    .pipe(z.string().min(1, RING_MESSAGES.nameRequired).max(80, 'Nom du ring : 80 caractères maximum')),
});
export const ZCreateRingResponse = successOf({ data: z.object({ id: z.string() }), message: z.string() });

/** PUT /api/customer/rings.php — every field but ring_id optional; the main save sends them all. */
export const ZUpdateRingRequest = z.object({
  ring_id: ringId,
  name: z.string().trim().min(1, RING_MESSAGES.nameRequired).max(80).optional(),
  encryption_level: z.enum(ENCRYPTION_LEVELS, { message: 'Niveau de chiffrement invalide' }).optional(),
  ephemeral_messages: zLooseBoolean.optional(),
  auto_destroy_delay: z.unknown().transform(normaliseAutoDestroyDelay).optional(),
  allow_voice: zLooseBoolean.optional(),
  allow_video: zLooseBoolean.optional(),
  voice_admin_only: zLooseBoolean.optional(),
  max_file_size: z.coerce
    .number({ message: 'Taille maximale invalide' })
    .int('Taille maximale invalide')
    .min(
      MAX_FILE_SIZE_MB.min,
      `Taille maximale : entre ${MAX_FILE_SIZE_MB.min} et ${MAX_FILE_SIZE_MB.max} Mo`,
    )
    .max(
      MAX_FILE_SIZE_MB.max,
      `Taille maximale : entre ${MAX_FILE_SIZE_MB.min} et ${MAX_FILE_SIZE_MB.max} Mo`,
    )
    .optional(),
  screen_protection_level: z.enum(PROTECTION_LEVELS, { message: 'Niveau de protection invalide' }).optional(),
  screen_devtools_protection: zLooseBoolean.optional(),
  screen_visibility_protection: zLooseBoolean.optional(),
  screen_experimental_features: zLooseBoolean.optional(),
  screen_recording_detection: zLooseBoolean.optional(),
  /** "Partager l’historique avec les nouveaux membres": past epoch keys reach members who join later. */
  share_history: zLooseBoolean.optional(),
});
export type TUpdateRingRequest = z.input<typeof ZUpdateRingRequest>;
export const ZUpdateRingResponse = successOf({ data: ZRingCustomerView, message: z.string() });

/** GET /api/customer/ring-users.php?ring_id= */
export const ZRingUsersQuery = z.object({ ring_id: ringId });
export const ZRingUsersResponse = successOf({ data: z.array(ZRingUser) });

/** POST /api/customer/ring-users.php */
export const ZInviteRingUserRequest = z.object({
  ring_id: z.string().default('').pipe(ringId),
  username,
  email: optionalEmail,
  message: z
    .string()
    .max(1000, 'Message : 1000 caractères maximum')
    .nullish()
    .transform((v) => (v ?? '').trim()),
});
export type TInviteRingUserRequest = z.input<typeof ZInviteRingUserRequest>;
export const ZInviteRingUserResponse = successOf({
  data: ZRingUser,
  message: z.string(),
  invite_url: z.string(),
});

/** HTTP calls of the customer's Ring users (the older ones keep their literal paths). */
export const RING_USER_API_PATHS = {
  resendInvitation: '/api/customer/resend-ring-invitation.php',
} as const;

/**
 * POST /api/customer/resend-ring-invitation.php — « Renvoyer » a pending invitation of one of the
 * customer's Rings: its code (the same: codes identify members) is valid INVITATION_TTL_DAYS again
 * from now, and the invitation email goes out again when the invitation has an email.
 */
export const ZResendRingInvitationRequest = z.object({
  user_id: z.string().trim().min(1, RING_MESSAGES.userNotFound).max(64),
});
export const ZResendRingInvitationResponse = successOf({
  data: ZRingUser,
  message: z.string(),
  invite_url: z.string(),
});

/** DELETE /api/customer/ring-users.php */
export const ZDeleteRingUserRequest = z.object({
  user_id: z.string().trim().min(1, RING_MESSAGES.userNotFound).max(64),
});

/**
 * PATCH /api/customer/ring-users.php — "Désactiver" an accepted member (its sessions and sockets
 * end at once, login is refused, the next Ring key epoch is due) or "Réactiver" it (within the
 * plan's user limit; it reads from the next epoch on). The owner cannot be deactivated.
 */
export const ZUpdateRingUserStatusRequest = z.object({
  user_id: z.string().trim().min(1, RING_MESSAGES.userNotFound).max(64),
  status: z.enum(['active', 'inactive'], { message: RING_MESSAGES.invalidUserStatus }),
});
export type TUpdateRingUserStatusRequest = z.input<typeof ZUpdateRingUserStatusRequest>;
export const ZUpdateRingUserStatusResponse = successOf({ data: ZRingUser, message: z.string() });

/** The member a Ring session belongs to. */
export const ZRingSessionUser = z.object({
  id: z.string(),
  username: z.string(),
  email: z.string().nullable(),
  role: z.enum(RING_ROLES),
  inviteCode: z.string(),
});
export type TRingSessionUser = z.infer<typeof ZRingSessionUser>;
export const ZRingSessionRing = z.object({ id: z.string(), name: z.string(), plan: z.string() });
export type TRingSessionRing = z.infer<typeof ZRingSessionRing>;

/** POST /api/rings/accept-invite.php */
export const ZAcceptInviteRequest = z
  .object({
    invite_code: zBoundedString(64, RING_MESSAGES.invalidInvite).default(''),
    username: zBoundedString(40, 'Nom d’utilisateur : 40 caractères maximum').default(''),
    email: optionalEmail,
    password: zBoundedString(200, 'Mot de passe trop long (200 max)').default(''),
  })
  .superRefine((v, ctx) => {
    if (!v.invite_code.trim() || !v.username.trim() || !v.password)
      ctx.addIssue({ code: 'custom', message: RING_MESSAGES.fieldsRequired });
    else if (v.password.length < 8) ctx.addIssue({ code: 'custom', message: RING_MESSAGES.passwordTooShort });
  })
  .transform((v) => ({ ...v, invite_code: v.invite_code.trim().toUpperCase(), username: v.username.trim() }));
export type TAcceptInviteRequest = z.input<typeof ZAcceptInviteRequest>;

export const ZRingLoginResponse = successOf({
  token: z.string(),
  user: ZRingSessionUser,
  ring: ZRingSessionRing,
});
export type TRingLoginResponse = z.infer<typeof ZRingLoginResponse>;

/** POST /api/rings/login.php — by email (with ring_id after a selection) or by invite code. */
export const ZRingLoginRequest = z
  .object({
    email: zBoundedString(EMAIL_MAX_LENGTH).optional(),
    invite_code: zBoundedString(64).optional(),
    password: zBoundedString(200).default(''),
    ring_id: zBoundedString(64).optional(),
  })
  .superRefine((v, ctx) => {
    if ((!v.email?.trim() && !v.invite_code?.trim()) || !v.password) {
      ctx.addIssue({ code: 'custom', message: 'Veuillez remplir tous les champs' });
    }
  })
  .transform((v) => ({
    ...v,
    email: v.email?.trim().toLowerCase() || undefined,
    invite_code: v.invite_code?.trim().toUpperCase() || undefined,
  }));
export type TRingLoginRequest = z.input<typeof ZRingLoginRequest>;

/**
 * POST /api/customer/ring-session.php (customer bearer) — "Accéder à mon Ring": a Ring session for
 * the customer's owner membership of one of its own active Rings, without a second login. Answers
 * like /api/rings/login.php.
 */
export const ZCustomerRingSessionRequest = z.object({ ring_id: z.string().default('').pipe(ringId) });
export type TCustomerRingSessionRequest = z.input<typeof ZCustomerRingSessionRequest>;

/**
 * GET /api/rings/invite-info.php?code= (public, rate-limited) — what the owner entered for an
 * unused invitation, to prefill the acceptance form. An unknown or used code gets the same answer
 * as any invalid code, so nothing is revealed about it.
 */
export const ZInviteInfoQuery = z.object({
  code: zBoundedString(64, RING_MESSAGES.invalidInvite)
    .default('')
    .transform((v) => v.trim().toUpperCase())
    .pipe(z.string().min(1, RING_MESSAGES.invalidInvite)),
});
export const ZInviteInfo = z.object({
  username: z.string(),
  email: z.string().nullable(),
  ring_name: z.string(),
});
export type TInviteInfo = z.infer<typeof ZInviteInfo>;
export const ZInviteInfoResponse = successOf({ data: ZInviteInfo });

/** Several Rings match the email: the user picks one and submits again with ring_id. */
export const ZRingLoginSelection = z.object({
  success: z.literal(false),
  needsSelection: z.literal(true),
  rings: z.array(z.object({ id: z.string(), name: z.string(), role: z.enum(RING_ROLES) })),
  message: z.string(),
});
export type TRingLoginSelection = z.infer<typeof ZRingLoginSelection>;

/**
 * POST /api/rings/logout.php — no reason: the session ends now; `reason: 'unload'` (old clients)
 * only marks the member offline; `reason: 'last_tab'` (the browser's last Ring tab or popup closed)
 * ends it after RING_CLOSE_GRACE_SEC unless the same session is used again first (a reload).
 */
export const ZRingLogoutRequest = z.object({ reason: z.string().max(20).optional() });
export const RING_LAST_TAB_REASON = 'last_tab';
/** How long a Ring session whose last tab closed waits for a reload before it ends. */
export const RING_CLOSE_GRACE_SEC = 10;

/** A Ring member as the room shows them. */
export const ZRingRoomUser = z.object({
  id: z.string(),
  username: z.string(),
  role: z.enum(RING_ROLES),
  status: z.enum(['online', 'in_call', 'offline']),
  isOnline: z.boolean(),
  lastSeen: z.string().nullable(),
  isCurrentUser: z.boolean(),
  /** Published public keys and safety number; null until the member first unlocks. */
  keys: ZMemberPublicKeysView,
  /** When the member accepted its invitation (shown to whoever admits it). */
  joinedAt: z.string().nullable(),
});
export type TRingRoomUser = z.infer<typeof ZRingRoomUser>;

/** GET /api/rings/info.php */
export const ZRingInfoResponse = successOf({
  ring: z.object({
    id: z.string(),
    name: z.string(),
    plan: z.string(),
    encryptionLevel: z.enum(ENCRYPTION_LEVELS),
    ephemeral: z.boolean(),
    autoDestroyDelay: z.number().int(),
    voiceAdminOnly: z.boolean(),
    maxFileSize: z.number().int(),
    screenProtection: z.object({
      level: z.enum(PROTECTION_LEVELS),
      enableScreenRecordingDetection: z.boolean(),
      enableDevToolsProtection: z.boolean(),
      enableVisibilityProtection: z.boolean(),
      enableExperimentalFeatures: z.boolean(),
    }),
    capabilities: z.object({ voice: z.boolean(), video: z.boolean() }),
    storage: z.string(),
    storageBytes: z.object({ allocated: z.number(), used: z.number(), remaining: z.number() }),
    kdfSalt: z.string(),
    /** The Ring key state: current epoch (0: none yet) and whether the next message needs a new one. */
    e2ee: z.object({ currentEpoch: z.number().int().nonnegative(), rotationDue: z.boolean() }),
  }),
  user: ZRingSessionUser,
  users: z.array(ZRingRoomUser),
});
export type TRingInfo = z.infer<typeof ZRingInfoResponse>;
