import {
  MAX_FILE_SIZE_MB,
  RING_MESSAGES,
  normaliseProtection,
  type TRingCustomerView,
  type TRingUser,
  type TScreenProtection,
  type ZUpdateRingRequest,
} from '@securering/contract';
import type { z } from 'zod';
import type { Entitlements } from '../subscriptions/entitlements';
import type { RingMemberRow, RingRow } from './ring.repository';

/** What a plan lets a Ring be set to. */
export type PlanCapabilities = Pick<
  Entitlements,
  'encryptionLevels' | 'ephemeralAllowed' | 'voice' | 'video' | 'storageBytes'
>;

/** A settings change as the customer sends it (every field optional). */
export type RingSettingsInput = Omit<z.output<typeof ZUpdateRingRequest>, 'ring_id'>;

const MIB = 1024 ** 2;

/** The largest upload size (MB) a Ring may allow: its plan's whole storage, within the product's cap. */
export function maxFileSizeLimitMb(storageBytes: number): number {
  return Math.max(MAX_FILE_SIZE_MB.min, Math.min(MAX_FILE_SIZE_MB.max, Math.floor(storageBytes / MIB)));
}

/**
 * Applies a settings change under the plan's capabilities: the columns to write, or the French error
 * of the first setting the plan does not include (encryption level, ephemeral messages, voice,
 * video, a maximum file size beyond the plan's storage). Turning a capability off is always allowed;
 * protection switches follow the level rules whatever was sent.
 */
export function applyRingSettings(
  ring: RingRow,
  input: RingSettingsInput,
  plan: PlanCapabilities,
): { ok: true; changes: Partial<RingRow> } | { ok: false; error: string } {
  const changes: Partial<RingRow> = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.encryption_level !== undefined) {
    if (!plan.encryptionLevels.includes(input.encryption_level))
      return { ok: false, error: RING_MESSAGES.encryptionNotInPlan };
    changes.encryption_level = input.encryption_level;
  }
  if (input.ephemeral_messages !== undefined) {
    if (input.ephemeral_messages && !plan.ephemeralAllowed)
      return { ok: false, error: RING_MESSAGES.ephemeralNotInPlan };
    changes.ephemeral_messages = input.ephemeral_messages ? 1 : 0;
  }
  if (input.auto_destroy_delay !== undefined) changes.auto_destroy_delay = input.auto_destroy_delay;
  if (input.allow_voice !== undefined) {
    if (input.allow_voice && !plan.voice) return { ok: false, error: RING_MESSAGES.voiceNotInPlan };
    changes.allow_voice = input.allow_voice ? 1 : 0;
  }
  if (input.allow_video !== undefined) {
    if (input.allow_video && !plan.video) return { ok: false, error: RING_MESSAGES.videoNotInPlan };
    changes.allow_video = input.allow_video ? 1 : 0;
  }
  if (input.voice_admin_only !== undefined) changes.voice_admin_only = input.voice_admin_only ? 1 : 0;
  if (input.share_history !== undefined) changes.share_history = input.share_history ? 1 : 0;
  if (input.max_file_size !== undefined) {
    const max = maxFileSizeLimitMb(plan.storageBytes);
    if (input.max_file_size < MAX_FILE_SIZE_MB.min || input.max_file_size > max)
      return { ok: false, error: RING_MESSAGES.maxFileSizeOverPlan(max) };
    changes.max_file_size_mb = input.max_file_size;
  }

  const level = input.screen_protection_level ?? ring.screen_protection_level;
  const switches = normaliseProtection(level, {
    devtools: input.screen_devtools_protection ?? ring.screen_devtools_protection === 1,
    visibility: input.screen_visibility_protection ?? ring.screen_visibility_protection === 1,
    experimental: input.screen_experimental_features ?? ring.screen_experimental_features === 1,
    recording: input.screen_recording_detection ?? ring.screen_recording_detection === 1,
  });
  Object.assign(changes, {
    screen_protection_level: level,
    screen_devtools_protection: switches.devtools ? 1 : 0,
    screen_visibility_protection: switches.visibility ? 1 : 0,
    screen_experimental_features: switches.experimental ? 1 : 0,
    screen_recording_detection: switches.recording ? 1 : 0,
  });
  return { ok: true, changes };
}

export function toScreenProtection(ring: RingRow): TScreenProtection {
  return {
    level: ring.screen_protection_level,
    enableScreenRecordingDetection: ring.screen_recording_detection === 1,
    enableDevToolsProtection: ring.screen_devtools_protection === 1,
    enableVisibilityProtection: ring.screen_visibility_protection === 1,
    enableExperimentalFeatures: ring.screen_experimental_features === 1,
  };
}

export function toRingCustomerView(
  ring: RingRow,
  usedBytes: number,
  membersCount: number,
): TRingCustomerView {
  return {
    id: ring.id,
    name: ring.name,
    plan: ring.plan_slug,
    encryptionLevel: ring.encryption_level,
    ephemeralMessages: ring.ephemeral_messages === 1,
    autoDestroyDelay: ring.auto_destroy_delay,
    allowVoice: ring.allow_voice === 1,
    allowVideo: ring.allow_video === 1,
    voiceAdminOnly: ring.voice_admin_only === 1,
    maxFileSize: ring.max_file_size_mb,
    screenProtection: toScreenProtection(ring),
    storageBytes: {
      allocated: ring.storage_quota_bytes,
      used: usedBytes,
      remaining: Math.max(0, ring.storage_quota_bytes - usedBytes),
    },
    membersCount,
    createdAt: ring.created_at,
    shareHistory: ring.share_history === 1,
  };
}

/**
 * A member as the Ring's owner sees it; never the password hash. `online`: it has the room open now
 * (presence the server has anyway, issue 28's « En ligne »).
 */
export function toRingUser(member: RingMemberRow, online = false): TRingUser {
  return {
    id: member.id,
    username: member.username,
    email: member.email,
    status: member.status,
    role: member.role,
    inviteCode: member.invite_code,
    isUsed: member.is_used === 1,
    lastSeen: member.last_seen_at,
    online,
    createdAt: member.created_at,
    admission:
      member.refused_at !== null
        ? 'refused'
        : member.admitted_seq !== null
          ? 'admitted'
          : member.is_used === 1
            ? 'waiting'
            : null,
    inviteExpiresAt: member.is_used === 1 ? null : (member.invite_expires_at ?? null),
  };
}

/**
 * Whether a pending invitation's code still opens the Ring at `nowIso` (issue 27). An invitation
 * written without an expiry (none are since the migration that added it) does not expire.
 */
export function isInvitationOpen(member: Pick<RingMemberRow, 'invite_expires_at'>, nowIso: string): boolean {
  return !member.invite_expires_at || member.invite_expires_at > nowIso;
}

/** When an invitation created or sent again at `nowMs` expires (INVITATION_TTL_DAYS later). */
export function invitationExpiry(nowMs: number, ttlMs: number): string {
  return new Date(nowMs + ttlMs).toISOString();
}
