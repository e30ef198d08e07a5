import { getSettingDefinition, type SettingKind } from '@securering/contract';
import { Input } from '@/components/ui/input';
import { Field } from '@/components/ui/label';
import { SwitchField } from '@/components/ui/switch';
import type { SettingsMap } from '@/lib/site-settings';
import { useSettingsForm, validateSettings, type SettingField } from './site-api';
import { SettingsFormCard } from './settings-form-card';

const decimal = (n: number) => String(n).replace('.', ',');

/** A number field with the bounds and default of its definition (spec 3 §5), as hint and fallback. */
function numberField(
  category: string,
  key: string,
  label: string,
  unit = 's',
): SettingField & { kind: SettingKind } {
  const def = getSettingDefinition(category, key)!;
  const kind = def.kind;
  const hint =
    kind.type === 'number'
      ? `Entre ${decimal(kind.min)} et ${decimal(kind.max)}${unit ? ` ${unit}` : ''}${kind.step ? `, par pas de ${decimal(kind.step)}` : ''} (défaut ${decimal(Number(def.default))}).`
      : undefined;
  return { key, label, fallback: def.default, kind, ...(hint ? { hint } : {}) };
}

function NumberInput({
  field,
  value,
  error,
  disabled,
  onChange,
}: {
  field: SettingField & { kind: SettingKind };
  value: string;
  error: string | undefined;
  disabled: boolean;
  onChange: (value: string) => void;
}) {
  const id = `rings-${field.key}`;
  const kind = field.kind;
  return (
    <Field id={id} label={field.label} error={error} hint={field.hint}>
      <Input
        id={id}
        type="number"
        inputMode="decimal"
        value={value}
        placeholder={field.fallback}
        disabled={disabled}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        {...(kind.type === 'number' ? { min: kind.min, max: kind.max, step: kind.step ?? 1 } : {})}
        onChange={(e) => onChange(e.target.value)}
        className="max-w-40"
      />
    </Field>
  );
}

const REFRESH = numberField('general', 'ring_refresh_interval', 'Intervalle de rafraîchissement des Rings');
const APP_LINKS: SettingField[] = [
  { key: 'ios_app_url', label: 'Lien de l’application iOS' },
  { key: 'android_app_url', label: 'Lien de l’application Android' },
  { key: 'apk_direct_url', label: 'Lien direct de l’APK Android' },
];
const RING_FIELDS: SettingField[] = [REFRESH, ...APP_LINKS];

/**
 * "Paramètres des Rings": the room's refresh interval and the app links (category general). Where
 * Ring files are stored is set at deployment (DATA_DIR or S3_BUCKET), not here.
 */
export function RingsGeneralForm({ initial, canEdit }: { initial: SettingsMap; canEdit: boolean }) {
  const form = useSettingsForm('general', RING_FIELDS, initial);
  const disabled = !canEdit || form.saving;
  return (
    <SettingsFormCard
      title="Paramètres des Rings"
      description="Rafraîchissement des espaces et liens vers les applications mobiles."
      canEdit={canEdit}
      saving={form.saving}
      onSave={form.submit}
      contentClassName="grid gap-4 md:grid-cols-2"
    >
      <NumberInput
        field={REFRESH}
        value={form.values[REFRESH.key] ?? ''}
        error={form.errors[REFRESH.key]}
        disabled={disabled}
        onChange={(v) => form.set(REFRESH.key, v)}
      />
      {APP_LINKS.map((field) => {
        const id = `rings-${field.key}`;
        const error = form.errors[field.key];
        return (
          <Field key={field.key} id={id} label={field.label} error={error} hint={field.hint}>
            <Input
              id={id}
              type="url"
              value={form.values[field.key] ?? ''}
              placeholder="https://…"
              disabled={disabled}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${id}-error` : undefined}
              onChange={(e) => form.set(field.key, e.target.value)}
            />
          </Field>
        );
      })}
    </SettingsFormCard>
  );
}

const WS_REQUIRED: SettingField = { key: 'ws_required', label: 'WebSocket obligatoire', fallback: '1' };
const POLLING_ENABLED: SettingField = {
  key: 'polling_enabled',
  label: 'Repli en interrogation périodique (polling)',
  fallback: '0',
};
const POLLING_NUMBERS = [
  numberField('realtime', 'polling_initial_sec', 'Intervalle initial de polling'),
  numberField('realtime', 'polling_max_sec', 'Intervalle maximal de polling'),
  numberField('realtime', 'polling_backoff_factor', 'Facteur de ralentissement (backoff)', ''),
];
const WS_NUMBERS = [
  numberField('realtime', 'heartbeat_sec', 'Battement WebSocket (heartbeat)'),
  numberField('realtime', 'grace_sec', 'Délai de grâce'),
];
const POLLING_FIELDS: SettingField[] = [POLLING_ENABLED, ...POLLING_NUMBERS];
const ALWAYS_FIELDS: SettingField[] = [WS_REQUIRED, ...WS_NUMBERS];
const REALTIME_FIELDS: SettingField[] = [...ALWAYS_FIELDS, ...POLLING_FIELDS];
export const POLLING_ORDER_ERROR = 'L’intervalle maximal doit être supérieur ou égal à l’intervalle initial';

/** The cross-field rule the server also applies: max polling ≥ initial polling. */
export function pollingOrderError(values: SettingsMap): Record<string, string> {
  const initial = Number((values.polling_initial_sec || '60').replace(',', '.'));
  const max = Number((values.polling_max_sec || '300').replace(',', '.'));
  return Number.isFinite(initial) && Number.isFinite(max) && max < initial
    ? { polling_max_sec: POLLING_ORDER_ERROR }
    : {};
}

/** "Temps réel": WebSocket requirement, polling fallback and heartbeat (category realtime). */
export function RingsRealtimeForm({ initial, canEdit }: { initial: SettingsMap; canEdit: boolean }) {
  const form = useSettingsForm('realtime', REALTIME_FIELDS, initial);
  const disabled = !canEdit || form.saving;
  const wsRequired = form.values.ws_required === '1';
  // Polling is a fallback for when the WebSocket is optional: its settings are locked otherwise.
  const pollingDisabled = disabled || wsRequired;

  const handleSave = () => {
    const pollingProblems = {
      ...validateSettings('realtime', POLLING_FIELDS, form.values),
      ...pollingOrderError(form.values),
    };
    // With the WebSocket required, locked polling values that do not validate are left as stored.
    if (wsRequired && Object.keys(pollingProblems).length > 0) form.submit({ only: ALWAYS_FIELDS });
    else form.submit({ extraErrors: pollingOrderError(form.values) });
  };

  return (
    <SettingsFormCard
      title="Paramètres temps réel"
      description="Connexion des membres aux Rings&#8239;: WebSocket et repli en polling."
      canEdit={canEdit}
      saving={form.saving}
      onSave={handleSave}
      contentClassName="space-y-4"
    >
      <SwitchField
        id="rings-ws_required"
        label={WS_REQUIRED.label}
        hint="Les clients doivent utiliser le WebSocket&#8239;; le polling est alors désactivé."
        checked={wsRequired}
        disabled={disabled}
        onCheckedChange={(checked) => form.set('ws_required', checked ? '1' : '0')}
        className="py-2"
      />
      <div className="grid gap-4 md:grid-cols-2">
        {WS_NUMBERS.map((field) => (
          <NumberInput
            key={field.key}
            field={field}
            value={form.values[field.key] ?? ''}
            error={form.errors[field.key]}
            disabled={disabled}
            onChange={(v) => form.set(field.key, v)}
          />
        ))}
      </div>
      <fieldset
        disabled={pollingDisabled}
        aria-describedby={wsRequired ? 'rings-polling-locked' : undefined}
        className="space-y-4 rounded-lg border border-slate-200 p-4"
      >
        <legend className="px-1 font-semibold">Polling</legend>
        {wsRequired ? (
          <p id="rings-polling-locked" className="text-sm text-slate-500">
            Désactivé tant que le WebSocket est obligatoire.
          </p>
        ) : null}
        <SwitchField
          id="rings-polling_enabled"
          label={POLLING_ENABLED.label}
          hint="Interroge le serveur à intervalle croissant quand le WebSocket n’est pas disponible."
          checked={form.values.polling_enabled === '1'}
          disabled={pollingDisabled}
          onCheckedChange={(checked) => form.set('polling_enabled', checked ? '1' : '0')}
          className="py-2"
        />
        <div className="grid gap-4 md:grid-cols-3">
          {POLLING_NUMBERS.map((field) => (
            <NumberInput
              key={field.key}
              field={field}
              value={form.values[field.key] ?? ''}
              error={form.errors[field.key]}
              disabled={pollingDisabled}
              onChange={(v) => form.set(field.key, v)}
            />
          ))}
        </div>
      </fieldset>
    </SettingsFormCard>
  );
}
