import type { TRingCustomerView, TRingUser, TScreenProtection } from '@securering/contract';
import type { RingMemberRow, RingRow } from './ring.repository';

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
  };
}

/** A member as the Ring's owner sees it; never the password hash. */
export function toRingUser(member: RingMemberRow): TRingUser {
  return {
    id: member.id,
    username: member.username,
    email: member.email,
    status: member.status,
    role: member.role,
    inviteCode: member.invite_code,
    isUsed: member.is_used === 1,
    lastSeen: member.last_seen_at,
    createdAt: member.created_at,
  };
}
