import {
  DEFAULT_NOTIFICATION_SETTINGS,
  ZNotificationSettingsResponse,
  isMuted,
  type TNewMessageEvent,
  type TNotificationSettings,
} from '@securering/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useToast } from '@/components/ui/toast';
import { apiRequest } from '@/lib/api-client';
import { NOTICE_DURATION_MS, decideNotice, noticeBody, noticeTypeOf } from './chat-policy';
import { groupedNoticeTitle, joinNoticeGroup, type NoticeGroup } from './notice-groups';

const SETTINGS_KEY = ['ring', 'notification-settings'] as const;
const SETTINGS_PATH = '/api/notifications/get-settings.php';
const SAVE_PATH = '/api/notifications/save-settings.php';
/** The spec's local copy of the notification configuration (used when the server cannot answer). */
const STORAGE_KEY = 'secureRing.notificationSettings';

/** An incoming message as a notice needs it; `text` is the decrypted text (null if unreadable). */
export interface IncomingNotice {
  conversationId: string;
  messageId: string;
  fromUsername: string;
  title: string;
  messageType: TNewMessageEvent['messageType'];
  isEphemeral: boolean;
  text: string | null;
  own: boolean;
  inView: boolean;
  /** The message names this member (signed mention list, issue 29): noticed even when muted. */
  mentioned?: boolean;
  onOpen?: () => void;
}

function storedSettings(): TNotificationSettings {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null');
    return value && typeof value === 'object'
      ? { ...DEFAULT_NOTIFICATION_SETTINGS, ...(value as Partial<TNotificationSettings>) }
      : DEFAULT_NOTIFICATION_SETTINGS;
  } catch {
    return DEFAULT_NOTIFICATION_SETTINGS;
  }
}

function store(settings: TNotificationSettings): void {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(settings));
  } catch {
    // Storage disabled: the server keeps the reference copy.
  }
}

function desktopPermission(): NotificationPermission | 'unsupported' {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

/** The current time, refreshed every `ms` (for "muted until"). */
function useClock(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

/**
 * The member's message notifications in the room (spec 2 §3, §4, §9): settings read from and saved
 * to the notification settings API (falling back to this device's copy), mute and unmute, and the
 * notice of an incoming message — sound at the member's volume, desktop notification after
 * permission (text cut to 100 characters, closed after 5 s), an in-page notice.
 */
export function useChatNotifications(readerName: string) {
  const client = useQueryClient();
  const notify = useToast();
  const query = useQuery({
    queryKey: SETTINGS_KEY,
    queryFn: async ({ signal }) => {
      try {
        const { settings } = await apiRequest(SETTINGS_PATH, {
          auth: 'ring',
          schema: ZNotificationSettingsResponse,
          signal,
        });
        store(settings);
        return settings;
      } catch (error) {
        if (signal.aborted) throw error;
        return storedSettings();
      }
    },
    staleTime: 60_000,
  });
  const settings = query.data ?? DEFAULT_NOTIFICATION_SETTINGS;
  const now = useClock(15_000);
  const muted = isMuted(settings, now);
  const [permission, setPermission] = useState(desktopPermission);

  const save = useMutation({
    mutationFn: (changes: Partial<TNotificationSettings>) =>
      apiRequest(SAVE_PATH, {
        method: 'PUT',
        auth: 'ring',
        body: { settings: changes },
        schema: ZNotificationSettingsResponse,
      }),
    onSuccess: ({ settings: saved }) => {
      store(saved);
      client.setQueryData(SETTINGS_KEY, saved);
    },
    onError: (error) =>
      notify({ title: 'Enregistrement impossible', description: error.message, variant: 'error' }),
  });

  const live = useRef({ settings, muted, permission, readerName });
  const groups = useRef(new Map<string, NoticeGroup>());
  useEffect(() => {
    live.current = { settings, muted, permission, readerName };
  });

  const { mutate } = save;
  const muteFor = useCallback(
    (minutes: number) => mutate({ muteUntil: Date.now() + minutes * 60_000 }),
    [mutate],
  );
  const muteAll = useCallback(() => mutate({ muteAll: true }), [mutate]);
  const unmute = useCallback(() => mutate({ muteAll: false, muteUntil: null }), [mutate]);

  const requestDesktop = useCallback(async () => {
    if (typeof Notification === 'undefined') return;
    setPermission(await Notification.requestPermission());
  }, []);

  /** Shows the notice of one incoming message if the rules say so. */
  const present = useCallback(
    (notice: IncomingNotice, options: { ignoreView?: boolean } = {}) => {
      const { settings: current, muted: isMutedNow, permission: granted, readerName: reader } = live.current;
      const type = noticeTypeOf(notice.messageType, notice.text, reader);
      const decision = decideNotice({
        own: notice.own,
        inView: options.ignoreView ? false : notice.inView,
        muted: isMutedNow && !notice.mentioned,
        settings: current,
        type,
        desktopPermission: granted,
      });
      if (!decision.notify) return false;
      if (decision.sound) {
        const audio = new Audio(`/api/notifications/sound.php?type=${decision.sound}`);
        audio.volume = current.messageVolume;
        void audio.play().catch(() => undefined);
      }
      const body = noticeBody(notice.text, notice.isEphemeral);
      if (decision.desktop) {
        try {
          const desktop = new Notification(notice.title, { body, tag: notice.messageId, silent: true });
          desktop.onclick = () => {
            window.focus();
            notice.onOpen?.();
            desktop.close();
          };
          setTimeout(() => desktop.close(), NOTICE_DURATION_MS);
        } catch {
          // Some browsers only allow notifications from a service worker.
        }
      }
      // One in-page notice per conversation: a message arriving while it shows joins it (issue 29).
      const group = joinNoticeGroup(
        groups.current.get(notice.conversationId),
        Date.now(),
        NOTICE_DURATION_MS,
      );
      groups.current.set(notice.conversationId, group);
      notify({
        title: groupedNoticeTitle(notice.title, group.count),
        description: body,
        variant: 'info',
        duration: NOTICE_DURATION_MS,
        group: `chat:${notice.conversationId}`,
        ...(notice.onOpen
          ? { action: { label: 'Ouvrir', altText: 'Ouvrir la conversation', onSelect: notice.onOpen } }
          : {}),
      });
      return true;
    },
    [notify],
  );

  const loaded = query.isSuccess;
  const saving = save.isPending;
  return useMemo(
    () => ({
      settings,
      loaded,
      muted,
      muteFor,
      muteAll,
      unmute,
      saving,
      permission,
      requestDesktop,
      present,
    }),
    [settings, loaded, muted, muteFor, muteAll, unmute, saving, permission, requestDesktop, present],
  );
}

export type ChatNotifications = ReturnType<typeof useChatNotifications>;
