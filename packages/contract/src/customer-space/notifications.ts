import { z } from 'zod';
import { successOf } from '../common';

export const RINGTONES = ['default', 'classic', 'modern', 'discrete', 'urgent'] as const;
export type Ringtone = (typeof RINGTONES)[number];
export const MESSAGE_SOUNDS = ['subtle', 'mention', 'dm', 'ephemeral'] as const;
export type MessageSound = (typeof MESSAGE_SOUNDS)[number];
export const MUTE_PRESETS_MINUTES = [15, 30, 60, 240] as const;

const volume = z.coerce
  .number({ message: 'Volume invalide' })
  .min(0, 'Volume entre 0 et 1')
  .max(1, 'Volume entre 0 et 1')
  .transform((v) => Math.round(v * 10) / 10);

/** Notification settings (spec 2 §3). muteUntil is a Unix time in milliseconds. */
export const ZNotificationSettings = z.object({
  callSound: z.boolean(),
  callVibration: z.boolean(),
  callDesktop: z.boolean(),
  callVolume: volume,
  ringtone: z.enum(RINGTONES),
  messageSound: z.boolean(),
  messageDesktop: z.boolean(),
  messageVolume: volume,
  messageNotificationSound: z.enum(MESSAGE_SOUNDS),
  muteAll: z.boolean(),
  muteUntil: z.number().int().nonnegative().nullable(),
});
export type TNotificationSettings = z.infer<typeof ZNotificationSettings>;

export const DEFAULT_NOTIFICATION_SETTINGS: TNotificationSettings = {
  callSound: true,
  callVibration: true,
  callDesktop: true,
  callVolume: 0.7,
  ringtone: 'default',
  messageSound: true,
  messageDesktop: true,
  messageVolume: 0.3,
  messageNotificationSound: 'subtle',
  muteAll: false,
  muteUntil: null,
};

/** GET /api/notifications/get-settings.php */
export const ZNotificationSettingsResponse = successOf({ settings: ZNotificationSettings });
/**
 * PUT /api/notifications/save-settings.php — partial settings are merged into the stored ones.
 * Unknown keys are dropped; a save left with no known setting is refused and stores nothing.
 */
export const ZSaveNotificationSettingsRequest = z.object({
  settings: ZNotificationSettings.partial().refine(
    (settings) => Object.keys(settings).length > 0,
    'Aucun réglage de notification à enregistrer',
  ),
});

/** Muted when muteAll is on, or until a time still in the future. */
export function isMuted(
  settings: Pick<TNotificationSettings, 'muteAll' | 'muteUntil'>,
  nowMs: number,
): boolean {
  return settings.muteAll || (settings.muteUntil !== null && settings.muteUntil > nowMs);
}
