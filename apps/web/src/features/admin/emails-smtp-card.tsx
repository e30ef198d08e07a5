import {
  EMAIL_MESSAGES,
  SECRET_MARKER,
  SMTP_DEFAULT_PORT,
  SMTP_ENCRYPTIONS,
  SMTP_ENCRYPTION_LABELS,
  type SmtpEncryption,
} from '@securering/contract';
import { Save, Send } from 'lucide-react';
import { useState } from 'react';
import { LoadError } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Input, NativeSelect } from '@/components/ui/input';
import { Field } from '@/components/ui/label';
import { PasswordInput } from '@/components/ui/password-input';
import { Spinner } from '@/components/ui/spinner';
import { useToast } from '@/components/ui/toast';
import { useAdminSession } from '@/lib/auth/admin-session';
import { useSendTestEmail } from './emails-api';
import { SAVE_FAILED, useAdminSettings, useSaveSettings } from './settings-api';

interface SmtpForm {
  host: string;
  port: string;
  username: string;
  password: string;
  encryption: SmtpEncryption;
  from_email: string;
  from_name: string;
}

function formFrom(stored: Record<string, string>): SmtpForm {
  const encryption = (SMTP_ENCRYPTIONS as readonly string[]).includes(stored.encryption ?? '')
    ? (stored.encryption as SmtpEncryption)
    : 'tls';
  return {
    host: stored.host ?? '',
    port: stored.port || String(SMTP_DEFAULT_PORT),
    username: stored.username ?? '',
    password: stored.password ?? '',
    encryption,
    from_email: stored.from_email ?? '',
    from_name: stored.from_name ?? '',
  };
}

/** SMTP configuration (saved through the settings API) and the test email (spec 3 §2.5). */
export function SmtpCard() {
  const smtp = useAdminSettings('smtp');
  return (
    <Card>
      <CardHeader>
        <CardTitle>Configuration SMTP</CardTitle>
        <CardDescription>Serveur d’envoi des emails (inscriptions, paiements, rappels).</CardDescription>
      </CardHeader>
      <CardContent>
        {smtp.isPending ? (
          <Spinner />
        ) : smtp.isError ? (
          <LoadError onRetry={() => void smtp.refetch()} />
        ) : (
          // Keyed by the stored values: a save that changes them restarts the form from them.
          <SmtpForm key={JSON.stringify(smtp.data)} stored={smtp.data} />
        )}
      </CardContent>
    </Card>
  );
}

/** Shown when the stored password would follow a new server: the server refuses it too. */
const RETYPE_PASSWORD =
  'Le serveur, le port ou l’identifiant a changé\u202f: saisissez de nouveau le mot de passe.';

/** Whether the form points the stored password at another host, port or username. */
function destinationChanged(form: SmtpForm, initial: SmtpForm): boolean {
  const port = (value: string) => value.trim() || String(SMTP_DEFAULT_PORT);
  return (
    form.host.trim() !== initial.host.trim() ||
    port(form.port) !== port(initial.port) ||
    form.username.trim() !== initial.username.trim()
  );
}

function SmtpForm({ stored }: { stored: Record<string, string> }) {
  const session = useAdminSession();
  const canEdit = session.can('email_management', 'edit');
  const [initial] = useState<SmtpForm>(() => formFrom(stored));
  const [form, setForm] = useState<SmtpForm>(initial);
  // The stored password is only ever sent to the server it was entered for.
  const mustRetypePassword = form.password === SECRET_MARKER && destinationChanged(form, initial);
  const [testEmail, setTestEmail] = useState('');
  const [testError, setTestError] = useState<string | null>(null);
  const save = useSaveSettings();
  const sendTest = useSendTestEmail();
  const notify = useToast();

  const set =
    <K extends keyof SmtpForm>(key: K) =>
    (value: SmtpForm[K]) =>
      setForm((current) => ({ ...current, [key]: value }));

  const handleSave = (event: React.FormEvent) => {
    event.preventDefault();
    if (mustRetypePassword) {
      notify({ title: SAVE_FAILED, description: RETYPE_PASSWORD, variant: 'error' });
      return;
    }
    const settings: Record<string, string> = {
      host: form.host.trim(),
      port: form.port.trim() || String(SMTP_DEFAULT_PORT),
      username: form.username.trim(),
      encryption: form.encryption,
      from_email: form.from_email.trim(),
      from_name: form.from_name.trim(),
    };
    // The marker stands for the stored password: it is not sent back (spec 3 §5).
    if (form.password !== SECRET_MARKER) settings.password = form.password;
    save.mutate(
      { category: 'smtp', settings },
      {
        onSuccess: (res) =>
          notify({ title: 'Paramètres SMTP enregistrés', description: res.message, variant: 'success' }),
        onError: (error) =>
          notify({
            title: SAVE_FAILED,
            description: error.message,
            variant: 'error',
          }),
      },
    );
  };

  const handleTest = (event: React.FormEvent) => {
    event.preventDefault();
    const email = testEmail.trim();
    if (!email) return setTestError(EMAIL_MESSAGES.emailRequired);
    if (mustRetypePassword) return setTestError(RETYPE_PASSWORD);
    setTestError(null);
    sendTest.mutate(
      {
        email,
        smtp: {
          host: form.host.trim(),
          port: form.port.trim() || String(SMTP_DEFAULT_PORT),
          username: form.username.trim(),
          password: form.password,
          encryption: form.encryption,
          from_email: form.from_email.trim(),
          from_name: form.from_name.trim(),
        },
      },
      {
        onSuccess: (res) =>
          notify({ title: 'Email de test envoyé', description: res.message, variant: 'success' }),
        onError: (error) =>
          notify({
            title: 'Impossible d’envoyer l’email de test.',
            description: error.message,
            variant: 'error',
            duration: 8000,
          }),
      },
    );
  };

  return (
    <div className="space-y-6">
      <form noValidate onSubmit={handleSave} className="space-y-4">
        <fieldset disabled={!canEdit} className="grid gap-4 sm:grid-cols-2">
          <Field id="smtp-host" label="Serveur SMTP">
            <Input
              id="smtp-host"
              value={form.host}
              placeholder="smtp.example.com"
              autoComplete="off"
              onChange={(e) => set('host')(e.target.value)}
            />
          </Field>
          <Field id="smtp-port" label="Port">
            <Input
              id="smtp-port"
              type="number"
              min={1}
              max={65535}
              value={form.port}
              placeholder={String(SMTP_DEFAULT_PORT)}
              onChange={(e) => set('port')(e.target.value)}
            />
          </Field>
          <Field id="smtp-username" label="Nom d’utilisateur">
            <Input
              id="smtp-username"
              value={form.username}
              autoComplete="off"
              onChange={(e) => set('username')(e.target.value)}
            />
          </Field>
          <Field
            id="smtp-password"
            label="Mot de passe"
            error={mustRetypePassword ? RETYPE_PASSWORD : undefined}
            hint={
              form.password === SECRET_MARKER && !mustRetypePassword
                ? 'Mot de passe enregistré\u202f: laissez tel quel pour le conserver (même serveur, port et identifiant).'
                : undefined
            }
          >
            <PasswordInput
              id="smtp-password"
              value={form.password}
              autoComplete="new-password"
              onChange={(e) => set('password')(e.target.value)}
            />
          </Field>
          <Field id="smtp-encryption" label="Chiffrement">
            <NativeSelect
              id="smtp-encryption"
              value={form.encryption}
              onChange={(e) => set('encryption')(e.target.value as SmtpEncryption)}
            >
              {SMTP_ENCRYPTIONS.map((value) => (
                <option key={value} value={value}>
                  {SMTP_ENCRYPTION_LABELS[value]}
                </option>
              ))}
            </NativeSelect>
          </Field>
          <Field id="smtp-from-email" label="Email d’expédition">
            <Input
              id="smtp-from-email"
              type="email"
              value={form.from_email}
              placeholder="no-reply@example.com"
              onChange={(e) => set('from_email')(e.target.value)}
            />
          </Field>
          <Field id="smtp-from-name" label="Nom d’expéditeur" className="sm:col-span-2">
            <Input
              id="smtp-from-name"
              value={form.from_name}
              onChange={(e) => set('from_name')(e.target.value)}
            />
          </Field>
        </fieldset>
        {canEdit ? (
          <Button type="submit" disabled={save.isPending}>
            <Save aria-hidden /> Enregistrer la configuration
          </Button>
        ) : null}
      </form>

      {canEdit ? (
        <form noValidate onSubmit={handleTest} className="space-y-2 border-t border-slate-200 pt-4">
          <h4 className="font-medium">Email de test</h4>
          <p className="text-sm text-slate-500">
            Envoie un email immédiatement avec les valeurs ci-dessus, même non enregistrées.
          </p>
          <div className="flex flex-col gap-3 sm:flex-row sm:items-start">
            <Field
              id="smtp-test-email"
              label="Destinataire"
              error={testError ?? undefined}
              className="flex-1"
            >
              <Input
                id="smtp-test-email"
                type="email"
                value={testEmail}
                placeholder="vous@example.com"
                aria-invalid={Boolean(testError)}
                onChange={(e) => setTestEmail(e.target.value)}
              />
            </Field>
            <Button type="submit" variant="secondary" className="sm:mt-6" disabled={sendTest.isPending}>
              <Send aria-hidden /> {sendTest.isPending ? 'Envoi…' : 'Envoyer un test'}
            </Button>
          </div>
        </form>
      ) : null}
    </div>
  );
}
