import { RING_MESSAGES } from '@securering/contract';
import { describe, expect, it } from 'vitest';
import {
  applyRingSettings,
  invitationExpiry,
  isInvitationOpen,
  maxFileSizeLimitMb,
  type PlanCapabilities,
} from './ring.policy';
import type { RingRow } from './ring.repository';

const GIB = 1024 ** 3;

const ring: RingRow = {
  id: 'r1',
  customer_id: 'c1',
  name: 'Équipe',
  plan_slug: 'starter',
  encryption_level: 'standard',
  ephemeral_messages: 0,
  auto_destroy_delay: 300,
  allow_voice: 0,
  allow_video: 0,
  voice_admin_only: 0,
  max_file_size_mb: 10,
  screen_protection_level: 'standard',
  screen_devtools_protection: 1,
  screen_visibility_protection: 1,
  screen_experimental_features: 0,
  screen_recording_detection: 0,
  storage_quota_bytes: GIB,
  kdf_salt_b64: 'c2FsdA==',
  is_active: 1,
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:00:00.000Z',
  current_epoch: 0,
  epoch_created_at: null,
  epoch_message_count: 0,
  rotation_due: 0,
  share_history: 0,
  key_revision: 0,
  log_head_seq: -1,
  log_head_hash: '',
  log_level: null,
};

/** A small plan: one GiB, no voice, no video, no ephemeral messages, two encryption levels. */
const small: PlanCapabilities = {
  encryptionLevels: ['basic', 'standard'],
  ephemeralAllowed: false,
  voice: false,
  video: false,
  storageBytes: GIB,
};
const full: PlanCapabilities = {
  encryptionLevels: ['basic', 'standard', 'high', 'military'],
  ephemeralAllowed: true,
  voice: true,
  video: true,
  storageBytes: 500 * GIB,
};

describe('applyRingSettings', () => {
  it('refuses every capability the plan does not include, with its French message', () => {
    const cases: Array<[Parameters<typeof applyRingSettings>[1], string]> = [
      [{ allow_voice: true }, RING_MESSAGES.voiceNotInPlan],
      [{ allow_video: true }, RING_MESSAGES.videoNotInPlan],
      [{ ephemeral_messages: true }, RING_MESSAGES.ephemeralNotInPlan],
      [{ encryption_level: 'military' }, RING_MESSAGES.encryptionNotInPlan],
      [{ max_file_size: 1025 }, RING_MESSAGES.maxFileSizeOverPlan(1024)],
      [{ max_file_size: 0 }, RING_MESSAGES.maxFileSizeOverPlan(1024)],
    ];
    for (const [input, error] of cases)
      expect(applyRingSettings(ring, input, small)).toEqual({ ok: false, error });
  });

  it('always allows switching a capability off, and what the plan includes', () => {
    const off = applyRingSettings(
      ring,
      { allow_voice: false, allow_video: false, ephemeral_messages: false, max_file_size: 1024 },
      small,
    );
    expect(off).toMatchObject({
      ok: true,
      changes: { allow_voice: 0, allow_video: 0, ephemeral_messages: 0, max_file_size_mb: 1024 },
    });
    const on = applyRingSettings(
      ring,
      {
        allow_voice: true,
        allow_video: true,
        ephemeral_messages: true,
        encryption_level: 'military',
        max_file_size: 2048,
        voice_admin_only: true,
        auto_destroy_delay: 60,
        name: 'Nouveau nom',
      },
      full,
    );
    expect(on).toEqual({
      ok: true,
      changes: expect.objectContaining({
        allow_voice: 1,
        allow_video: 1,
        ephemeral_messages: 1,
        encryption_level: 'military',
        max_file_size_mb: 2048,
        voice_admin_only: 1,
        auto_destroy_delay: 60,
        name: 'Nouveau nom',
      }),
    });
  });

  it('stores the owner’s history-sharing choice on any plan', () => {
    expect(applyRingSettings(ring, { share_history: true }, small)).toMatchObject({
      ok: true,
      changes: { share_history: 1 },
    });
    expect(applyRingSettings(ring, { share_history: false }, small)).toMatchObject({
      ok: true,
      changes: { share_history: 0 },
    });
    const untouched = applyRingSettings(ring, {}, small);
    expect(untouched.ok && 'share_history' in untouched.changes).toBe(false);
  });

  it('applies the protection level rules to the switches, whatever was sent', () => {
    const disabled = applyRingSettings(
      ring,
      {
        screen_protection_level: 'disabled',
        screen_devtools_protection: true,
        screen_recording_detection: true,
      },
      full,
    );
    expect(disabled).toMatchObject({
      ok: true,
      changes: {
        screen_protection_level: 'disabled',
        screen_devtools_protection: 0,
        screen_visibility_protection: 0,
        screen_experimental_features: 0,
        screen_recording_detection: 0,
      },
    });
    // Recording detection needs the experimental features.
    expect(applyRingSettings(ring, { screen_recording_detection: true }, full)).toMatchObject({
      ok: true,
      changes: { screen_protection_level: 'standard', screen_recording_detection: 0 },
    });
  });

  it('writes only the protection columns when nothing else is sent', () => {
    const result = applyRingSettings(ring, {}, small);
    expect(result.ok && Object.keys(result.changes).sort()).toEqual([
      'screen_devtools_protection',
      'screen_experimental_features',
      'screen_protection_level',
      'screen_recording_detection',
      'screen_visibility_protection',
    ]);
  });
});

describe('maxFileSizeLimitMb', () => {
  it('is the plan storage in MiB, within 1 to 2048', () => {
    expect(maxFileSizeLimitMb(GIB)).toBe(1024);
    expect(maxFileSizeLimitMb(500 * GIB)).toBe(2048);
    expect(maxFileSizeLimitMb(0)).toBe(1);
  });
});

describe('pending invitations (issue 27)', () => {
  it('expire INVITATION_TTL_DAYS after they were created or sent again', () => {
    expect(invitationExpiry(Date.parse('2026-11-29T09:00:00.000Z'), 7 * 86_400_000)).toBe(
      '2026-12-06T09:00:00.000Z',
    );
  });

  it('open the Ring strictly before their expiry only', () => {
    const expiresAt = '2026-12-06T09:00:00.000Z';
    expect(isInvitationOpen({ invite_expires_at: expiresAt }, '2026-12-06T08:59:59.999Z')).toBe(true);
    expect(isInvitationOpen({ invite_expires_at: expiresAt }, expiresAt)).toBe(false);
    expect(isInvitationOpen({ invite_expires_at: null }, expiresAt)).toBe(true);
  });
});
