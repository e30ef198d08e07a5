import {
  AUTO_DESTROY,
  AUTO_DESTROY_PRESETS,
  ENCRYPTION_LEVELS,
  EPHEMERAL_MAX_NOTICE,
  MAX_FILE_SIZE_MB,
  PROTECTION_LEVELS,
  normaliseAutoDestroyDelay,
  normaliseProtection,
  protectionPreset,
  type EncryptionLevel,
  type ProtectionLevel,
  type ProtectionSwitches,
  type TCustomerPlanView,
  type TRingCustomerView,
} from '@securering/contract';
import { Bell, Lock, Settings2, ShieldAlert } from 'lucide-react';
import { useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { Field } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { SwitchField } from '@/components/ui/switch';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { useToast } from '@/components/ui/toast';
import { ApiError } from '@/lib/api-client';
import { announceProtection } from '@/lib/ring-broadcast';
import { cn } from '@/lib/utils';
import { useRingDetail, useUpdateRing } from './dashboard-api';
import { ENCRYPTION_LABELS, PROTECTION_LABELS } from '@/lib/ring-labels';
import { NotificationSettingsPanel } from '@/components/notification-settings-panel';

/** "Paramètres Ring" with its four sub-tabs. */
const frenchInteger = (n: number) => n.toLocaleString('fr-FR');

export function RingSettingsTab({ ringId, plan }: { ringId: string; plan: TCustomerPlanView }) {
  const ring = useRingDetail(ringId);
  if (ring.isPending) return <Spinner />;
  if (ring.isError) return <Alert variant="error">Erreur lors du chargement des données</Alert>;
  // Keyed by Ring: switching Rings starts a fresh form from that Ring's saved settings.
  return <RingSettingsForm key={ring.data.id} ring={ring.data} plan={plan} />;
}

interface FormState {
  encryption_level: EncryptionLevel;
  ephemeral_messages: boolean;
  auto_destroy_delay: string;
  level: ProtectionLevel;
  switches: ProtectionSwitches;
  allow_voice: boolean;
  allow_video: boolean;
  voice_admin_only: boolean;
  max_file_size: string;
  share_history: boolean;
}

function initialState(ring: TRingCustomerView): FormState {
  return {
    encryption_level: ring.encryptionLevel,
    ephemeral_messages: ring.ephemeralMessages,
    auto_destroy_delay: String(ring.autoDestroyDelay),
    level: ring.screenProtection.level,
    switches: {
      devtools: ring.screenProtection.enableDevToolsProtection,
      visibility: ring.screenProtection.enableVisibilityProtection,
      experimental: ring.screenProtection.enableExperimentalFeatures,
      recording: ring.screenProtection.enableScreenRecordingDetection,
    },
    allow_voice: ring.allowVoice,
    allow_video: ring.allowVideo,
    voice_admin_only: ring.voiceAdminOnly,
    max_file_size: String(ring.maxFileSize),
    share_history: ring.shareHistory,
  };
}

function RingSettingsForm({ ring, plan }: { ring: TRingCustomerView; plan: TCustomerPlanView }) {
  const [state, setState] = useState<FormState>(() => initialState(ring));
  const [section, setSection] = useState('security');
  const update = useUpdateRing();
  const notify = useToast();
  const set = <K extends keyof FormState>(key: K, value: FormState[K]) =>
    setState((s) => ({ ...s, [key]: value }));
  const setLevel = (level: ProtectionLevel) =>
    setState((s) => ({ ...s, level, switches: protectionPreset(level) }));
  const setSwitch = (key: keyof ProtectionSwitches, value: boolean) =>
    setState((s) => ({ ...s, switches: normaliseProtection(s.level, { ...s.switches, [key]: value }) }));
  const disabledLevel = state.level === 'disabled';

  const save = () => {
    const delay = normaliseAutoDestroyDelay(state.auto_destroy_delay);
    set('auto_destroy_delay', String(delay));
    update.mutate(
      {
        ring_id: ring.id,
        encryption_level: state.encryption_level,
        ephemeral_messages: state.ephemeral_messages,
        auto_destroy_delay: delay,
        allow_voice: state.allow_voice,
        allow_video: state.allow_video,
        voice_admin_only: state.voice_admin_only,
        max_file_size: Number(state.max_file_size) || MAX_FILE_SIZE_MB.fallback,
        screen_protection_level: state.level,
        screen_devtools_protection: state.switches.devtools,
        screen_visibility_protection: state.switches.visibility,
        screen_experimental_features: state.switches.experimental,
        screen_recording_detection: state.switches.recording,
        share_history: state.share_history,
      },
      {
        onSuccess: (res) => {
          notify({ title: 'Paramètres enregistrés', description: res.message, variant: 'success' });
          announceProtection({
            ringId: ring.id,
            level: res.data.screenProtection.level,
            ephemeral: res.data.ephemeralMessages,
          });
        },
        onError: (error) =>
          notify({
            title: 'Sauvegarde impossible',
            description:
              error instanceof ApiError && error.kind === 'network' ? 'Erreur réseau' : error.message,
            variant: 'error',
          }),
      },
    );
  };

  return (
    <Card>
      <CardContent className="pt-6">
        <p className="mb-4 text-sm text-slate-600">
          Ring <strong>{ring.name}</strong>
        </p>
        <Tabs value={section} onValueChange={setSection}>
          <TabsList>
            <TabsTrigger value="security">
              <Lock aria-hidden /> Sécurité et chiffrement
            </TabsTrigger>
            <TabsTrigger value="protection">
              <ShieldAlert aria-hidden /> Protection anti-capture
            </TabsTrigger>
            <TabsTrigger value="notifications">
              <Bell aria-hidden /> Notifications d’appel
            </TabsTrigger>
            <TabsTrigger value="options">
              <Settings2 aria-hidden /> Options
            </TabsTrigger>
          </TabsList>

          <TabsContent value="security" className="space-y-6">
            <fieldset>
              <legend className="mb-2 font-semibold">Niveau de chiffrement</legend>
              <div role="radiogroup" aria-label="Niveau de chiffrement" className="grid gap-2 sm:grid-cols-2">
                {ENCRYPTION_LEVELS.map((level) => {
                  const allowed = plan.encryption_levels.includes(level);
                  return (
                    <button
                      key={level}
                      type="button"
                      role="radio"
                      aria-checked={state.encryption_level === level}
                      disabled={!allowed}
                      onClick={() => set('encryption_level', level)}
                      className={cn(
                        'rounded-lg border p-3 text-left text-sm disabled:cursor-not-allowed disabled:opacity-50',
                        state.encryption_level === level
                          ? 'border-primary bg-primary/5 font-semibold'
                          : 'border-slate-200',
                      )}
                    >
                      {ENCRYPTION_LABELS[level]}
                      {!allowed ? (
                        <span className="block text-xs font-normal text-slate-500">
                          Non inclus dans votre plan
                        </span>
                      ) : null}
                    </button>
                  );
                })}
              </div>
            </fieldset>
            <div className="divide-y divide-slate-100">
              <SwitchField
                id="ephemeral"
                label="Messages éphémères"
                hint={
                  plan.ephemeral_allowed
                    ? `Chaque membre voit le message pendant le délai choisi à partir de sa première lecture. ${EPHEMERAL_MAX_NOTICE}`
                    : 'Non inclus dans votre plan.'
                }
                checked={state.ephemeral_messages}
                disabled={!plan.ephemeral_allowed}
                onCheckedChange={(v) => set('ephemeral_messages', v)}
                className="py-3"
              />
            </div>
            <Field
              id="auto-destroy"
              label="Délai d’autodestruction (secondes)"
              hint={`Entre ${frenchInteger(AUTO_DESTROY.min)} et ${frenchInteger(AUTO_DESTROY.max)} secondes (1\u00a0jour)\u202f; ${frenchInteger(AUTO_DESTROY.fallback)} par défaut.`}
              className="max-w-xs"
            >
              <Input
                id="auto-destroy"
                type="number"
                min={AUTO_DESTROY.min}
                max={AUTO_DESTROY.max}
                value={state.auto_destroy_delay}
                disabled={!state.ephemeral_messages}
                onChange={(e) => set('auto_destroy_delay', e.target.value)}
                onBlur={() =>
                  set('auto_destroy_delay', String(normaliseAutoDestroyDelay(state.auto_destroy_delay)))
                }
              />
            </Field>
            <div role="group" aria-label="Délais courants" className="-mt-4 flex flex-wrap gap-2">
              {AUTO_DESTROY_PRESETS.map((preset) => (
                <Button
                  key={preset.seconds}
                  type="button"
                  size="sm"
                  variant={Number(state.auto_destroy_delay) === preset.seconds ? 'default' : 'outline'}
                  aria-pressed={Number(state.auto_destroy_delay) === preset.seconds}
                  disabled={!state.ephemeral_messages}
                  onClick={() => set('auto_destroy_delay', String(preset.seconds))}
                >
                  {preset.label}
                </Button>
              ))}
            </div>
            <div className="border-t border-slate-100">
              <SwitchField
                id="share-history"
                label="Partager l’historique avec les nouveaux membres"
                hint="Les membres qui rejoignent le Ring reçoivent aussi les clés des échanges passés. Désactivé, ils lisent à partir de leur arrivée."
                checked={state.share_history}
                onCheckedChange={(v) => set('share_history', v)}
                className="pt-4"
              />
            </div>
          </TabsContent>

          <TabsContent value="protection" className="space-y-6">
            <fieldset>
              <legend className="mb-2 font-semibold">Niveau de protection</legend>
              <div role="radiogroup" aria-label="Niveau de protection" className="flex flex-wrap gap-2">
                {PROTECTION_LEVELS.map((level) => (
                  <button
                    key={level}
                    type="button"
                    role="radio"
                    aria-checked={state.level === level}
                    onClick={() => setLevel(level)}
                    className={cn(
                      'rounded-full border px-4 py-1.5 text-sm',
                      state.level === level
                        ? 'border-primary bg-primary text-white'
                        : 'border-slate-300 bg-white',
                    )}
                  >
                    {PROTECTION_LABELS[level]}
                  </button>
                ))}
              </div>
              <ul className="mt-3 space-y-1 text-sm text-slate-600" aria-label="Effet de chaque niveau">
                {PROTECTION_LEVELS.map((level) => (
                  <li key={level} className={cn(state.level === level && 'font-medium text-slate-900')}>
                    <span className="font-semibold">{PROTECTION_LABELS[level]}</span>
                    {'\u00a0: '}
                    {PROTECTION_LEVEL_EFFECTS[level]}
                  </li>
                ))}
              </ul>
            </fieldset>
            <div className="divide-y divide-slate-100">
              <SwitchField
                id="devtools"
                label="Détection des outils de développement"
                checked={state.switches.devtools}
                disabled={disabledLevel}
                onCheckedChange={(v) => setSwitch('devtools', v)}
                className="py-3"
              />
              <SwitchField
                id="visibility"
                label="Masquer le contenu quand la fenêtre n’est plus visible"
                checked={state.switches.visibility}
                disabled={disabledLevel}
                onCheckedChange={(v) => setSwitch('visibility', v)}
                className="py-3"
              />
              <SwitchField
                id="experimental"
                label="Fonctionnalités expérimentales"
                checked={state.switches.experimental}
                disabled={disabledLevel}
                onCheckedChange={(v) => setSwitch('experimental', v)}
                className="py-3"
              />
              <SwitchField
                id="recording"
                label="Détection d’enregistrement d’écran"
                hint="Nécessite les fonctionnalités expérimentales."
                checked={state.switches.recording}
                disabled={disabledLevel || !state.switches.experimental}
                onCheckedChange={(v) => setSwitch('recording', v)}
                className="py-3"
              />
            </div>
          </TabsContent>

          <TabsContent value="notifications">
            <NotificationSettingsPanel session="customer" />
          </TabsContent>

          <TabsContent value="options" className="space-y-2">
            <div className="divide-y divide-slate-100">
              <SwitchField
                id="allow-voice"
                label="Appels vocaux"
                checked={state.allow_voice}
                onCheckedChange={(v) => set('allow_voice', v)}
                className="py-3"
              />
              <SwitchField
                id="allow-video"
                label="Appels vidéo"
                hint={
                  plan.videoEnabled ? undefined : 'L’option vidéo n’est pas incluse dans votre abonnement.'
                }
                checked={state.allow_video}
                disabled={!plan.videoEnabled}
                onCheckedChange={(v) => set('allow_video', v)}
                className="py-3"
              />
              <SwitchField
                id="voice-admin-only"
                label="Appels vocaux réservés aux administrateurs"
                checked={state.voice_admin_only}
                onCheckedChange={(v) => set('voice_admin_only', v)}
                className="py-3"
              />
            </div>
            <Field id="max-file-size" label="Taille maximale des fichiers (Mo)" className="max-w-xs">
              <Input
                id="max-file-size"
                type="number"
                min={MAX_FILE_SIZE_MB.min}
                max={MAX_FILE_SIZE_MB.max}
                value={state.max_file_size}
                onChange={(e) => set('max_file_size', e.target.value)}
              />
            </Field>
          </TabsContent>
        </Tabs>
        {/* Notification preferences are personal and saved by their own panel. */}
        {section === 'notifications' ? null : (
          <div className="mt-6 border-t border-slate-100 pt-4">
            <Button onClick={save} disabled={update.isPending}>
              {update.isPending ? 'Enregistrement…' : 'Enregistrer les paramètres'}
            </Button>
          </div>
        )}
      </CardContent>
    </Card>
  );
}

/** What each level does in the room, shown next to the levels (issue 28). */
const PROTECTION_LEVEL_EFFECTS: Record<ProtectionLevel, string> = {
  disabled: 'aucune protection, le contenu reste toujours affiché.',
  basic: 'raccourcis de capture et menu contextuel bloqués, contenu masqué quand l’onglet est caché.',
  standard:
    'en plus, glisser bloqué, filigrane au nom de la personne\u202f; le contenu reste affiché quand une autre fenêtre est au premier plan.',
  maximum:
    'en plus, sélection du texte bloquée (bouton «\u202fCopier\u202f» sur chaque message), contenu masqué dès que la fenêtre perd le focus (sauf au profit des fenêtres du Ring), détection des outils de développement et détection expérimentale d’enregistrement.',
};
