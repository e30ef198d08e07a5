import { SECRET_MARKER } from '@securering/contract';
import { Bitcoin, Copy, CreditCard, Wallet } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Alert, LoadError } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card';
import { Input, NativeSelect } from '@/components/ui/input';
import { Field, Label } from '@/components/ui/label';
import { PasswordInput } from '@/components/ui/password-input';
import { Spinner } from '@/components/ui/spinner';
import { Switch } from '@/components/ui/switch';
import { useToast } from '@/components/ui/toast';
import { useCopyToClipboard } from '@/components/ui/use-copy-to-clipboard';
import { apiErrorMessage } from '@/lib/api-error-message';
import { useAdminSession } from '@/lib/auth/admin-session';
import {
  PAYMENT_CATEGORIES,
  settingsToSave,
  usePaymentSettings,
  useSavePaymentSettings,
  type PaymentCategory,
  type ProviderValues,
} from './payments-api';
import { SAVE_FAILED, SAVE_OK } from './settings-api';

interface KeyField {
  key: string;
  label: string;
  secret?: boolean;
  placeholder?: string;
}

interface ProviderConfig {
  title: string;
  shortName: string;
  description: string;
  icon: typeof CreditCard;
  modeLabel: string;
  /** Labels of test_mode '1' and '0'. */
  modes: { test: string; live: string };
  groups: Array<{ title: string; fields: KeyField[] }>;
  webhook: { path: string; hint: string };
}

const PROVIDERS: Record<PaymentCategory, ProviderConfig> = {
  stripe: {
    title: 'Carte bancaire (Stripe)',
    shortName: 'Stripe',
    description: 'Paiement par carte bancaire via Stripe Checkout.',
    icon: CreditCard,
    modeLabel: 'Mode',
    modes: { test: 'Test', live: 'Production (live)' },
    groups: [
      {
        title: 'Clés de test',
        fields: [
          { key: 'public_key_test', label: 'Clé publique (test)', placeholder: 'pk_test_…' },
          { key: 'secret_key_test', label: 'Clé secrète (test)', secret: true, placeholder: 'sk_test_…' },
        ],
      },
      {
        title: 'Clés de production',
        fields: [
          { key: 'public_key_live', label: 'Clé publique (live)', placeholder: 'pk_live_…' },
          { key: 'secret_key_live', label: 'Clé secrète (live)', secret: true, placeholder: 'sk_live_…' },
        ],
      },
      {
        title: 'Webhook',
        fields: [
          {
            key: 'webhook_secret',
            label: 'Secret de signature du webhook',
            secret: true,
            placeholder: 'whsec_…',
          },
        ],
      },
    ],
    webhook: {
      path: '/api/webhooks/stripe.php',
      hint: 'À déclarer dans le tableau de bord Stripe (Développeurs › Webhooks).',
    },
  },
  paypal: {
    title: 'PayPal',
    shortName: 'PayPal',
    description: 'Paiement par compte PayPal ou carte via PayPal.',
    icon: Wallet,
    modeLabel: 'Environnement',
    modes: { test: 'Sandbox', live: 'Live' },
    groups: [
      {
        title: 'Identifiants sandbox',
        fields: [
          { key: 'client_id_test', label: 'Client ID (sandbox)' },
          { key: 'client_secret_test', label: 'Client secret (sandbox)', secret: true },
        ],
      },
      {
        title: 'Identifiants live',
        fields: [
          { key: 'client_id_live', label: 'Client ID (live)' },
          { key: 'client_secret_live', label: 'Client secret (live)', secret: true },
        ],
      },
      { title: 'Webhook', fields: [{ key: 'webhook_id', label: 'Webhook ID' }] },
    ],
    webhook: {
      path: '/api/webhooks/paypal.php',
      hint: 'À déclarer dans l’application PayPal Developer, puis reporter son identifiant ci-dessus.',
    },
  },
  nowpayments: {
    title: 'Crypto-monnaies (NOWPayments)',
    shortName: 'NOWPayments',
    description: 'Paiement en BTC, ETH, USDT ou USDC via NOWPayments.',
    icon: Bitcoin,
    modeLabel: 'Mode',
    modes: { test: 'Sandbox', live: 'Production' },
    groups: [
      {
        title: 'Identifiants',
        fields: [
          { key: 'api_key', label: 'Clé API', secret: true },
          { key: 'ipn_secret', label: 'Secret IPN', secret: true },
        ],
      },
    ],
    webhook: {
      path: '/api/webhooks/nowpayments.php',
      hint: 'Adresse IPN envoyée automatiquement avec chaque paiement\u202f: rien à configurer chez NOWPayments.',
    },
  },
};

const secretKeysOf = (config: ProviderConfig) =>
  config.groups.flatMap((g) => g.fields.filter((f) => f.secret).map((f) => f.key));

const isOn = (value: string | undefined) => value === '1';

/** "Paiements": one card per provider (enable, mode, keys, webhook URL) and a summary. */
export function PaymentsTab() {
  const session = useAdminSession();
  const settings = usePaymentSettings();
  const canEdit = session.can('payment_settings', 'edit');

  if (settings.isPending) return <Spinner label="Chargement des paramètres de paiement…" />;
  if (settings.isError) {
    return <LoadError message={settings.error.message} onRetry={() => void settings.refetch()} />;
  }

  return (
    <section aria-label="Paiements" className="space-y-4">
      {!canEdit ? (
        <Alert variant="info">
          Consultation seule&#8239;: vous n’avez pas le droit de modifier ces paramètres.
        </Alert>
      ) : null}
      <SummaryCard values={settings.data} />
      <div className="grid gap-4 xl:grid-cols-3">
        {PAYMENT_CATEGORIES.map((category) => (
          // Keyed by its stored values: the card restarts from them after its own save only.
          <ProviderCard
            key={`${category}-${JSON.stringify(settings.data[category])}`}
            category={category}
            initial={settings.data[category]}
            canEdit={canEdit}
          />
        ))}
      </div>
    </section>
  );
}

function SummaryCard({ values }: { values: Record<PaymentCategory, ProviderValues> }) {
  const active = PAYMENT_CATEGORIES.filter((c) => isOn(values[c].enabled));
  return (
    <Card>
      <CardHeader>
        <CardTitle>Récapitulatif</CardTitle>
        <CardDescription>
          {active.length === 0
            ? 'Aucun moyen de paiement actif\u202f: les clients ne peuvent pas payer en ligne.'
            : `${active.length} moyen(s) de paiement actif(s) sur 3.`}
        </CardDescription>
      </CardHeader>
      <CardContent>
        <ul className="grid gap-3 sm:grid-cols-3">
          {PAYMENT_CATEGORIES.map((category) => {
            const config = PROVIDERS[category];
            const v = values[category];
            const test = v.test_mode !== '0';
            return (
              <li
                key={category}
                className="flex flex-wrap items-center gap-2 rounded-lg border border-slate-200 p-3"
              >
                <config.icon className="size-4 text-slate-500" aria-hidden />
                <span className="font-medium">{config.shortName}</span>
                {isOn(v.enabled) ? (
                  <Badge variant="success">Actif</Badge>
                ) : (
                  <Badge variant="neutral">Inactif</Badge>
                )}
                <Badge variant={test ? 'warning' : 'default'}>
                  {test ? config.modes.test : config.modes.live}
                </Badge>
              </li>
            );
          })}
        </ul>
      </CardContent>
    </Card>
  );
}

function ProviderCard({
  category,
  initial,
  canEdit,
}: {
  category: PaymentCategory;
  initial: ProviderValues;
  canEdit: boolean;
}) {
  const config = PROVIDERS[category];
  const [values, setValues] = useState<ProviderValues>(initial);
  const save = useSavePaymentSettings();
  const notify = useToast();
  const enabled = isOn(values.enabled);
  const webhookUrl = `${window.location.origin}${config.webhook.path}`;
  const id = (key: string) => `${category}-${key}`;

  const submit = (settings: Record<string, string>, onFail?: () => void) =>
    save.mutate(
      { category, settings },
      {
        onSuccess: () => notify({ title: SAVE_OK, variant: 'success' }),
        onError: (error) => {
          onFail?.();
          notify({
            title: SAVE_FAILED,
            description: apiErrorMessage(error, SAVE_FAILED),
            variant: 'error',
          });
        },
      },
    );

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!enabled || !canEdit) return;
    submit(settingsToSave(initial, values, secretKeysOf(config)));
  };

  // Switching on only unlocks the form (saved with the keys); switching a saved provider off is
  // saved at once, since the save button is disabled while the provider is not enabled.
  const handleEnabled = (on: boolean) => {
    setValues((v) => ({ ...v, enabled: on ? '1' : '0' }));
    if (!on && isOn(initial.enabled)) {
      submit({ enabled: '0' }, () => setValues((v) => ({ ...v, enabled: '1' })));
    }
  };

  const copy = useCopyToClipboard(
    { title: 'URL copiée' },
    { title: 'Copie impossible', description: webhookUrl },
  );

  return (
    <Card aria-label={config.title} className="flex flex-col">
      <form noValidate onSubmit={handleSubmit} className="flex flex-1 flex-col">
        <CardHeader>
          <div className="flex items-start justify-between gap-3">
            <div className="flex items-center gap-2">
              <config.icon className="size-5 text-slate-600" aria-hidden />
              <CardTitle>{config.title}</CardTitle>
            </div>
            <div className="flex items-center gap-2">
              {/* The visible text says the state; the switch's name says what it switches. */}
              <Label
                htmlFor={id('enabled')}
                className={enabled ? 'text-sm text-emerald-700' : 'text-sm text-slate-500'}
              >
                {enabled ? 'Activé' : 'Désactivé'}
              </Label>
              <Switch
                id={id('enabled')}
                aria-label={`${config.title} activé`}
                checked={enabled}
                disabled={!canEdit || save.isPending}
                onCheckedChange={handleEnabled}
              />
            </div>
          </div>
          <CardDescription>{config.description}</CardDescription>
        </CardHeader>
        <CardContent className="flex-1 space-y-4">
          <Field id={id('mode')} label={config.modeLabel}>
            <NativeSelect
              id={id('mode')}
              value={values.test_mode === '0' ? '0' : '1'}
              disabled={!canEdit}
              onChange={(e) => setValues((v) => ({ ...v, test_mode: e.target.value }))}
            >
              <option value="1">{config.modes.test}</option>
              <option value="0">{config.modes.live}</option>
            </NativeSelect>
          </Field>
          {config.groups.map((group) => (
            <fieldset key={group.title} className="space-y-3">
              <legend className="text-sm font-semibold text-slate-800">{group.title}</legend>
              {group.fields.map((field) => {
                const common = {
                  id: id(field.key),
                  value: values[field.key] ?? '',
                  disabled: !canEdit,
                  autoComplete: 'off',
                  spellCheck: false,
                  placeholder: field.placeholder,
                  onChange: (e: React.ChangeEvent<HTMLInputElement>) =>
                    setValues((v) => ({ ...v, [field.key]: e.target.value })),
                };
                return (
                  <Field
                    key={field.key}
                    id={id(field.key)}
                    label={field.label}
                    hint={
                      field.secret && initial[field.key] === SECRET_MARKER
                        ? 'Enregistrée\u202f: laissez ******** pour la conserver.'
                        : undefined
                    }
                  >
                    {field.secret ? <PasswordInput {...common} /> : <Input {...common} />}
                  </Field>
                );
              })}
            </fieldset>
          ))}
          <Field id={id('webhook-url')} label="URL de notification (webhook)" hint={config.webhook.hint}>
            <div className="flex gap-2">
              <Input id={id('webhook-url')} value={webhookUrl} readOnly className="font-mono text-xs" />
              <Button
                variant="outline"
                size="icon"
                aria-label="Copier l’URL"
                onClick={() => void copy(webhookUrl)}
              >
                <Copy aria-hidden />
              </Button>
            </div>
          </Field>
        </CardContent>
        {canEdit ? (
          <CardFooter className="flex-col items-stretch gap-2">
            <Button type="submit" disabled={!enabled || save.isPending}>
              {save.isPending ? 'Enregistrement…' : `Enregistrer ${config.shortName}`}
            </Button>
            {!enabled ? (
              <p className="text-xs text-slate-500">
                Activez {config.shortName} pour enregistrer ses paramètres.
              </p>
            ) : null}
          </CardFooter>
        ) : null}
      </form>
    </Card>
  );
}
