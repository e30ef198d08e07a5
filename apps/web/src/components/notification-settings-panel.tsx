import {
  DEFAULT_NOTIFICATION_SETTINGS,
  MESSAGE_SOUNDS,
  MUTE_PRESETS_MINUTES,
  RINGTONES,
  ZNotificationSettings,
  ZNotificationSettingsResponse,
  isMuted,
  type MessageSound,
  type Ringtone,
  type TNotificationSettings,
} from '@securering/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { format, isSameDay } from 'date-fns';
import { fr } from 'date-fns/locale';
import { Bell, BellOff, MessageSquare, Phone, Play } from 'lucide-react';
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card';
import { NativeSelect } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { SwitchField } from '@/components/ui/switch';
import { useToast } from '@/components/ui/toast';
import { apiRequest } from '@/lib/api-client';

/** Copy of the last settings known to the server, used when it cannot be reached (spec 2 §7). */
const STORAGE_KEY = 'secureRing.notificationSettings';
/**
 * Who edits: the customer (customer space) or a Ring member (the room). The server keeps one record
 * per person: an owner's Ring session and its customer account read and write the same one.
 */
export type SettingsSession = 'customer' | 'ring';
const formQueryKey = (session: SettingsSession) => [session, 'notification-settings-form'] as const;
/** The room's own copy (applied to incoming calls and messages), refreshed after a save here. */
const ROOM_SETTINGS_KEY = ['ring', 'notification-settings'] as const;
/** A sound test never rings longer than this (spec 2 §9). */
const PREVIEW_MAX_MS = 3000;

const RINGTONE_LABELS: Record<Ringtone, string> = {
  default: 'Par défaut',
  classic: 'Classique',
  modern: 'Moderne',
  discrete: 'Discrète',
  urgent: 'Urgente',
};
const MESSAGE_SOUND_LABELS: Record<MessageSound, string> = {
  subtle: 'Discret',
  mention: 'Mention',
  dm: 'Message privé',
  ephemeral: 'Éphémère',
};

interface LoadedSettings {
  settings: TNotificationSettings;
  /** The server could not be reached: the settings come from this device. */
  fromDevice: boolean;
}

function readStoredSettings(): TNotificationSettings {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '{}');
    const parsed = ZNotificationSettings.safeParse({
      ...DEFAULT_NOTIFICATION_SETTINGS,
      ...(stored as object),
    });
    return parsed.success ? parsed.data : DEFAULT_NOTIFICATION_SETTINGS;
  } catch {
    return DEFAULT_NOTIFICATION_SETTINGS;
  }
}

function storeSettings(settings: TNotificationSettings): void {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(settings));
  } catch {
    // Storage full or disabled: the server copy remains the reference.
  }
}

async function loadSettings(session: SettingsSession, signal: AbortSignal): Promise<LoadedSettings> {
  try {
    const { settings } = await apiRequest('/api/notifications/get-settings.php', {
      auth: session,
      schema: ZNotificationSettingsResponse,
      signal,
    });
    storeSettings(settings);
    return { settings, fromDevice: false };
  } catch (error) {
    if (signal.aborted) throw error;
    return { settings: readStoredSettings(), fromDevice: true };
  }
}

function muteStatus(settings: TNotificationSettings, now: number): string {
  if (settings.muteAll) return 'Toutes les notifications sont coupées.';
  if (settings.muteUntil === null || settings.muteUntil <= now) return 'Les notifications sont actives.';
  const until = new Date(settings.muteUntil);
  return isSameDay(until, now)
    ? `Notifications coupées jusqu’à ${format(until, 'HH:mm', { locale: fr })}.`
    : `Notifications coupées jusqu’au ${format(until, "d MMMM 'à' HH:mm", { locale: fr })}.`;
}

const presetLabel = (minutes: number) => (minutes < 60 ? `${minutes} min` : `${minutes / 60} h`);

/** The current time, refreshed often enough for a "muted until" line. */
function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), intervalMs);
    return () => window.clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/** Plays one sound test at a time, stopped after PREVIEW_MAX_MS or when the panel closes. */
function useSoundPreview() {
  const current = useRef<{ audio: HTMLAudioElement; timer: number } | null>(null);
  const stop = useCallback(() => {
    if (!current.current) return;
    window.clearTimeout(current.current.timer);
    current.current.audio.pause();
    current.current = null;
  }, []);
  useEffect(() => stop, [stop]);
  return useCallback(
    (url: string, volume: number, loop: boolean) => {
      stop();
      const audio = new Audio(url);
      audio.volume = volume;
      audio.loop = loop;
      current.current = { audio, timer: window.setTimeout(stop, PREVIEW_MAX_MS) };
      return audio.play();
    },
    [stop],
  );
}

/**
 * The person's call and message notification settings: the "Notifications d'appel" sub-tab of the
 * customer dashboard's "Paramètres Ring" tab, and the room's « Préférences de notification ».
 */
export function NotificationSettingsPanel({ session }: { session: SettingsSession }) {
  const queryClient = useQueryClient();
  const notify = useToast();
  const queryKey = formQueryKey(session);
  const query = useQuery({ queryKey, queryFn: ({ signal }) => loadSettings(session, signal) });
  const save = useMutation({
    mutationFn: (settings: TNotificationSettings) =>
      apiRequest('/api/notifications/save-settings.php', {
        method: 'PUT',
        auth: session,
        body: { settings },
        schema: ZNotificationSettingsResponse,
      }),
    onSuccess: ({ settings }) => {
      storeSettings(settings);
      queryClient.setQueryData<LoadedSettings>(queryKey, { settings, fromDevice: false });
      if (session === 'ring') void queryClient.invalidateQueries({ queryKey: ROOM_SETTINGS_KEY });
      notify({ title: 'Préférences enregistrées', variant: 'success' });
    },
    onError: (error) =>
      notify({ title: 'Enregistrement impossible', description: error.message, variant: 'error' }),
  });

  if (!query.data) return <Spinner label="Chargement des préférences…" />;
  return (
    <div className="space-y-4">
      {query.data.fromDevice ? (
        <Alert variant="info" title="Préférences du serveur indisponibles">
          Les préférences enregistrées sur cet appareil sont affichées.
        </Alert>
      ) : null}
      {/* Remounted with each server answer, so the form starts from what is stored. */}
      <NotificationSettingsForm
        key={query.dataUpdatedAt}
        initial={query.data.settings}
        saving={save.isPending}
        onSave={(settings) => save.mutate(settings)}
      />
    </div>
  );
}

function NotificationSettingsForm({
  initial,
  saving,
  onSave,
}: {
  initial: TNotificationSettings;
  saving: boolean;
  onSave: (settings: TNotificationSettings) => void;
}) {
  const notify = useToast();
  const [settings, setSettings] = useState(initial);
  const now = useNow(15_000);
  const playPreview = useSoundPreview();
  const update = (changes: Partial<TNotificationSettings>) => setSettings((s) => ({ ...s, ...changes }));
  const test = (url: string, volume: number, loop: boolean) => {
    playPreview(url, volume, loop).catch(() =>
      notify({ title: 'Lecture du son impossible', variant: 'error' }),
    );
  };
  const muted = isMuted(settings, now);

  return (
    <form
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        onSave(settings);
      }}
    >
      <Section id="notif-calls" title="Appels" icon={<Phone aria-hidden />}>
        <SwitchField
          id="notif-call-sound"
          label="Son d’appel"
          checked={settings.callSound}
          onCheckedChange={(callSound) => update({ callSound })}
          className="items-center"
        />
        <SwitchField
          id="notif-call-vibration"
          label="Vibration"
          checked={settings.callVibration}
          onCheckedChange={(callVibration) => update({ callVibration })}
          className="items-center"
        />
        <SwitchField
          id="notif-call-desktop"
          label="Notification de bureau pour les appels"
          checked={settings.callDesktop}
          onCheckedChange={(callDesktop) => update({ callDesktop })}
          className="items-center"
        />
        <VolumeSlider
          id="notif-call-volume"
          label="Volume des appels"
          value={settings.callVolume}
          onChange={(callVolume) => update({ callVolume })}
        />
        <SoundPicker
          id="notif-ringtone"
          label="Sonnerie"
          testLabel="Tester la sonnerie"
          value={settings.ringtone}
          options={RINGTONES.map((tone) => [tone, RINGTONE_LABELS[tone]])}
          onChange={(ringtone) => update({ ringtone })}
          onTest={() =>
            test(
              `/api/notifications/ringtone.php?tone=${settings.ringtone}&call=voice`,
              settings.callVolume,
              true,
            )
          }
        />
      </Section>

      <Section id="notif-messages" title="Messages" icon={<MessageSquare aria-hidden />}>
        <SwitchField
          id="notif-message-sound"
          label="Son des messages"
          checked={settings.messageSound}
          onCheckedChange={(messageSound) => update({ messageSound })}
          className="items-center"
        />
        <SwitchField
          id="notif-message-desktop"
          label="Notification de bureau pour les messages"
          checked={settings.messageDesktop}
          onCheckedChange={(messageDesktop) => update({ messageDesktop })}
          className="items-center"
        />
        <VolumeSlider
          id="notif-message-volume"
          label="Volume des messages"
          value={settings.messageVolume}
          onChange={(messageVolume) => update({ messageVolume })}
        />
        <SoundPicker
          id="notif-message-type"
          label="Son de notification"
          testLabel="Tester le son de notification"
          value={settings.messageNotificationSound}
          options={MESSAGE_SOUNDS.map((type) => [type, MESSAGE_SOUND_LABELS[type]])}
          onChange={(messageNotificationSound) => update({ messageNotificationSound })}
          onTest={() =>
            test(
              `/api/notifications/sound.php?type=${settings.messageNotificationSound}`,
              settings.messageVolume,
              false,
            )
          }
        />
      </Section>

      <Section id="notif-silence" title="Silence" icon={<BellOff aria-hidden />}>
        <SwitchField
          id="notif-mute-all"
          label="Tout couper"
          checked={settings.muteAll}
          onCheckedChange={(muteAll) => update({ muteAll })}
          className="items-center"
        />
        <div className="flex flex-wrap gap-2" role="group" aria-label="Couper temporairement">
          {MUTE_PRESETS_MINUTES.map((minutes) => (
            <Button
              key={minutes}
              variant="outline"
              size="sm"
              aria-label={`Couper pendant ${presetLabel(minutes)}`}
              onClick={() => update({ muteUntil: Date.now() + minutes * 60_000 })}
            >
              {presetLabel(minutes)}
            </Button>
          ))}
        </div>
        <div className="flex flex-wrap items-center justify-between gap-2">
          <p role="status" className="text-sm text-slate-600">
            {muteStatus(settings, now)}
          </p>
          {muted ? (
            <Button variant="secondary" size="sm" onClick={() => update({ muteAll: false, muteUntil: null })}>
              <Bell aria-hidden /> Réactiver
            </Button>
          ) : null}
        </div>
      </Section>

      <Button type="submit" disabled={saving}>
        {saving ? 'Enregistrement…' : 'Enregistrer'}
      </Button>
    </form>
  );
}

function Section({
  id,
  title,
  icon,
  children,
}: {
  id: string;
  title: string;
  icon: ReactNode;
  children: ReactNode;
}) {
  return (
    <Card role="region" aria-labelledby={`${id}-title`}>
      <CardHeader>
        <CardTitle id={`${id}-title`} className="flex items-center gap-2 text-base [&_svg]:size-4">
          {icon}
          {title}
        </CardTitle>
      </CardHeader>
      <CardContent className="space-y-4">{children}</CardContent>
    </Card>
  );
}

function VolumeSlider({
  id,
  label,
  value,
  onChange,
}: {
  id: string;
  label: string;
  value: number;
  onChange: (value: number) => void;
}) {
  const percent = `${Math.round(value * 100)} %`;
  return (
    <div className="space-y-1.5">
      <div className="flex items-center justify-between">
        <Label htmlFor={id}>{label}</Label>
        <span className="text-sm tabular-nums text-slate-600" aria-hidden>
          {percent}
        </span>
      </div>
      <input
        id={id}
        type="range"
        min={0}
        max={1}
        step={0.1}
        value={value}
        aria-valuetext={percent}
        onChange={(event) => onChange(Math.round(Number(event.target.value) * 10) / 10)}
        className="h-2 w-full cursor-pointer appearance-none rounded-full bg-slate-200 accent-primary focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-primary/30 [&::-moz-range-thumb]:size-4 [&::-moz-range-thumb]:rounded-full [&::-moz-range-thumb]:border-0 [&::-moz-range-thumb]:bg-primary [&::-webkit-slider-thumb]:size-4 [&::-webkit-slider-thumb]:appearance-none [&::-webkit-slider-thumb]:rounded-full [&::-webkit-slider-thumb]:bg-primary"
      />
    </div>
  );
}

function SoundPicker<T extends string>({
  id,
  label,
  testLabel,
  value,
  options,
  onChange,
  onTest,
}: {
  id: string;
  label: string;
  testLabel: string;
  value: T;
  options: Array<[T, string]>;
  onChange: (value: T) => void;
  onTest: () => void;
}) {
  return (
    <div className="space-y-1.5">
      <Label htmlFor={id}>{label}</Label>
      <div className="flex gap-2">
        <NativeSelect
          id={id}
          value={value}
          onChange={(event) => {
            const chosen = options.find(([option]) => option === event.target.value);
            if (chosen) onChange(chosen[0]);
          }}
        >
          {options.map(([option, text]) => (
            <option key={option} value={option}>
              {text}
            </option>
          ))}
        </NativeSelect>
        <Button variant="outline" aria-label={testLabel} onClick={onTest}>
          <Play aria-hidden /> Tester
        </Button>
      </div>
    </div>
  );
}
