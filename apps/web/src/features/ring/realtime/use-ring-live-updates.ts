import type { TPresenceUpdate, TRingInfo } from '@securering/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect } from 'react';
import { onProtectionUpdated } from '@/lib/ring-broadcast';
import { RING_INFO_KEY } from '../api/ring-info';
import { applyPresenceState, applyPresenceUpdates } from './presence-policy';
import { useRingEvent, useRingSocket } from './ring-socket';

type Updater = (info: TRingInfo) => TRingInfo;

/**
 * Keeps the room's copy of the Ring live on the room's socket: settings pushed by the server
 * (ring_settings_updated), presence, and protection changes announced by another tab of this
 * browser (BroadcastChannel). After a reconnection the Ring is read again (events may have been
 * missed meanwhile).
 */
export function useRingLiveUpdates(onSettingsChanged: () => void): void {
  const client = useQueryClient();
  const { ringId, joins } = useRingSocket();
  const patch = useCallback(
    (updater: Updater) => client.setQueryData<TRingInfo>(RING_INFO_KEY, (old) => (old ? updater(old) : old)),
    [client],
  );

  useEffect(() => {
    if (joins > 1) void client.invalidateQueries({ queryKey: RING_INFO_KEY });
  }, [joins, client]);

  useRingEvent('ring_settings_updated', (event) => {
    const u = event.updated;
    patch((info) => ({
      ...info,
      ring: {
        ...info.ring,
        ...(typeof u.name === 'string' ? { name: u.name } : {}),
        ...(typeof u.ephemeral_messages === 'boolean' ? { ephemeral: u.ephemeral_messages } : {}),
        ...(typeof u.auto_destroy_delay === 'number' ? { autoDestroyDelay: u.auto_destroy_delay } : {}),
        ...(typeof u.voice_admin_only === 'boolean' ? { voiceAdminOnly: u.voice_admin_only } : {}),
        ...(typeof u.encryption_level === 'string'
          ? { encryptionLevel: u.encryption_level as TRingInfo['ring']['encryptionLevel'] }
          : {}),
        capabilities: {
          voice: typeof u.allow_voice === 'boolean' ? u.allow_voice : info.ring.capabilities.voice,
          video: typeof u.allow_video === 'boolean' ? u.allow_video : info.ring.capabilities.video,
        },
        screenProtection: {
          ...info.ring.screenProtection,
          ...(u.screen_protection_level ? { level: u.screen_protection_level } : {}),
          ...(typeof u.screen_devtools_protection === 'boolean'
            ? { enableDevToolsProtection: u.screen_devtools_protection }
            : {}),
          ...(typeof u.screen_visibility_protection === 'boolean'
            ? { enableVisibilityProtection: u.screen_visibility_protection }
            : {}),
          ...(typeof u.screen_experimental_features === 'boolean'
            ? { enableExperimentalFeatures: u.screen_experimental_features }
            : {}),
          ...(typeof u.screen_recording_detection === 'boolean'
            ? { enableScreenRecordingDetection: u.screen_recording_detection }
            : {}),
        },
      },
    }));
    // A new level or history setting changes the Ring's key state (info.php's e2ee part).
    if (typeof u.encryption_level === 'string' || typeof u.share_history === 'boolean') {
      void client.invalidateQueries({ queryKey: RING_INFO_KEY });
    }
    onSettingsChanged();
  });

  useRingEvent('presence_state', (event) => {
    patch((info) => ({ ...info, users: applyPresenceState(info.users, event) }));
  });

  const applyPresence = (updates: readonly TPresenceUpdate[]) => {
    const users = client.getQueryData<TRingInfo>(RING_INFO_KEY)?.users;
    // Someone who just joined the Ring: read the list again to get their name (and keys).
    if (!users || updates.some((update) => !users.some((u) => u.id === update.userId))) {
      void client.invalidateQueries({ queryKey: RING_INFO_KEY });
      return;
    }
    patch((info) => ({ ...info, users: applyPresenceUpdates(info.users, updates) }));
  };
  useRingEvent('presence_update', (event) => applyPresence([event]));
  // Several changes gathered by the server in one tick (a wave of reconnections, say).
  useRingEvent('presence_updates', (event) => applyPresence(event.updates));

  useEffect(
    () =>
      onProtectionUpdated((message) => {
        if (message.ringId !== ringId) return;
        patch((info) => ({
          ...info,
          ring: {
            ...info.ring,
            ephemeral: message.ephemeral,
            screenProtection: { ...info.ring.screenProtection, level: message.level },
          },
        }));
      }),
    [ringId, patch],
  );
}
