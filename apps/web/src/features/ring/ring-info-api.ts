import { ZRingInfoResponse, type TRingInfo } from '@securering/contract';
import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { apiRequest } from '@/lib/api-client';
import { connectToRing, type ConnectionStatus } from '@/lib/realtime';
import { onProtectionUpdated } from '@/lib/ring-broadcast';

export function getRingInfoQueryOptions() {
  return queryOptions({
    queryKey: ['ring', 'info'],
    queryFn: ({ signal }) =>
      apiRequest('/api/rings/info.php', { auth: 'ring', schema: ZRingInfoResponse, signal }),
    refetchInterval: 60_000,
  });
}

export const useRingInfo = () => useQuery(getRingInfoQueryOptions());

type Updater = (info: TRingInfo) => TRingInfo;

/**
 * Keeps the room's copy of the Ring live: settings pushed by the server (ring_settings_updated),
 * presence, and protection changes announced by another tab of this browser.
 */
export function useRingLiveUpdates(
  ringId: string | undefined,
  onSettingsChanged: () => void,
): ConnectionStatus {
  const client = useQueryClient();
  const [status, setStatus] = useState<ConnectionStatus>('connecting');

  useEffect(() => {
    if (!ringId) return;
    const key = getRingInfoQueryOptions().queryKey;
    const patch = (updater: Updater) =>
      client.setQueryData<TRingInfo>(key, (old) => (old ? updater(old) : old));
    const socket = connectToRing(ringId, setStatus);

    socket.on('ring_settings_updated', (event) => {
      if (event.ringId !== ringId) return;
      const u = event.updated;
      patch((info) => ({
        ...info,
        ring: {
          ...info.ring,
          ...(typeof u.name === 'string' ? { name: u.name } : {}),
          ...(typeof u.ephemeral_messages === 'boolean' ? { ephemeral: u.ephemeral_messages } : {}),
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
      onSettingsChanged();
    });

    socket.on('presence_state', (event) => {
      if (event.ringId !== ringId) return;
      const online = new Set(event.online);
      patch((info) => ({
        ...info,
        users: info.users.map((user) => ({
          ...user,
          isOnline: online.has(user.id),
          status: online.has(user.id) ? 'online' : 'offline',
        })),
      }));
    });

    socket.on('presence_update', (event) => {
      if (event.ringId !== ringId) return;
      const known = client.getQueryData<TRingInfo>(key)?.users.some((u) => u.id === event.userId);
      // Someone who just joined the Ring: read the list again to get their name.
      if (!known) {
        void client.invalidateQueries({ queryKey: key });
        return;
      }
      patch((info) => ({
        ...info,
        users: info.users.map((user) =>
          user.id === event.userId
            ? {
                ...user,
                status: event.status,
                isOnline: event.status !== 'offline',
                lastSeen: event.lastSeen ?? user.lastSeen,
              }
            : user,
        ),
      }));
    });

    const stopBroadcast = onProtectionUpdated((message) => {
      if (message.ringId !== ringId) return;
      patch((info) => ({
        ...info,
        ring: {
          ...info.ring,
          ephemeral: message.ephemeral,
          screenProtection: { ...info.ring.screenProtection, level: message.level },
        },
      }));
    });

    return () => {
      stopBroadcast();
      socket.removeAllListeners();
      socket.close();
    };
  }, [ringId, client, onSettingsChanged]);

  return status;
}
