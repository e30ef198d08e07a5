import { MEMBER_ACCESS_MESSAGES, RING_RESET_PASSWORD_PARAM, type RingRole } from '@securering/contract';
import { KeyRound, Mail } from 'lucide-react';
import { lazy, Suspense, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Input, NativeSelect } from '@/components/ui/input';
import { Field } from '@/components/ui/label';
import { PasswordInput } from '@/components/ui/password-input';
import { useToast } from '@/components/ui/toast';
import {
  RING_LOGIN_NOTICE_TEXT,
  clearRingLoginNotice,
  peekRingLoginNotice,
} from '@/lib/auth/ring-login-notice';
import { useCustomerSession } from '@/lib/auth/customer-session';
import { useRingSession } from '@/lib/auth/ring-session';
import { cn } from '@/lib/utils';

const ROLE_LABELS: Record<RingRole, string> = { owner: 'propriétaire', admin: 'admin', member: 'membre' };

// « Mot de passe oublié » and the reset link's form: rarely used, loaded when asked for.
const RingForgotPasswordForm = lazy(() =>
  import('./ring-password-forms').then((m) => ({ default: m.RingForgotPasswordForm })),
);
const RingResetPasswordForm = lazy(() =>
  import('./ring-password-forms').then((m) => ({ default: m.RingResetPasswordForm })),
);

/**
 * Ring login: by email (with a Ring choice when the email is in several) or by invite code. An
 * error shows once, in the form, and goes as soon as the person edits what was refused. After a
 * room closed by itself (suspension, expired session) it says why and fills in the email; it also
 * leads to « Mot de passe oublié » and, from a reset link (`?reset=`), to the new password form.
 */
export function RingLoginForm() {
  const [params, setParams] = useSearchParams();
  const resetToken = params.get(RING_RESET_PASSWORD_PARAM);
  const [view, setView] = useState<'login' | 'forgot'>('login');
  const [email, setEmail] = useState(() => peekRingLoginNotice()?.email ?? '');
  if (resetToken !== null)
    return (
      <Suspense fallback={null}>
        <RingResetPasswordForm
          token={resetToken}
          onDone={() => {
            const next = new URLSearchParams(params);
            next.delete(RING_RESET_PASSWORD_PARAM);
            setParams(next, { replace: true });
          }}
        />
      </Suspense>
    );
  if (view === 'forgot')
    return (
      <Suspense fallback={null}>
        <RingForgotPasswordForm initialEmail={email} onBack={() => setView('login')} />
      </Suspense>
    );
  return <LoginCard email={email} setEmail={setEmail} onForgot={() => setView('forgot')} />;
}

function LoginCard({
  email,
  setEmail,
  onForgot,
}: {
  email: string;
  setEmail: (value: string) => void;
  onForgot: () => void;
}) {
  const session = useRingSession();
  const navigate = useNavigate();
  const notify = useToast();
  const [notice] = useState(() => peekRingLoginNotice());
  const [mode, setMode] = useState<'email' | 'invite'>('email');
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [choices, setChoices] = useState<Array<{ id: string; name: string; role: RingRole }> | null>(null);
  const [ringId, setRingId] = useState('');
  const [error, setError] = useState<{ title?: string; text: string } | null>(() =>
    notice && notice.kind !== 'logged_out'
      ? {
          ...(notice.kind === 'suspended' ? { title: 'Accès suspendu' } : {}),
          text: RING_LOGIN_NOTICE_TEXT[notice.kind],
        }
      : null,
  );
  const [pending, setPending] = useState(false);
  const edit = (setter: (value: string) => void) => (e: React.ChangeEvent<HTMLInputElement>) => {
    setter(e.target.value);
    setError(null);
  };

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setError(null);
    if (choices && !ringId) return setError({ text: 'Sélectionnez votre Ring' });
    setPending(true);
    const outcome = await session.login(
      mode === 'email'
        ? { email: email.trim(), password, ...(ringId ? { ring_id: ringId } : {}) }
        : { invite_code: code.trim(), password },
    );
    setPending(false);
    if (outcome.ok) {
      clearRingLoginNotice();
      notify({ title: 'Connexion réussie', variant: 'success' });
      navigate('/ring');
    } else if ('selection' in outcome) {
      setChoices(outcome.selection);
    } else if (outcome.error === 'network') {
      setError({ text: 'Impossible de se connecter au serveur' });
    } else if (outcome.error === MEMBER_ACCESS_MESSAGES.accessSuspended) {
      setError({ title: 'Accès suspendu', text: outcome.error });
    } else {
      setError({ title: 'Erreur de connexion', text: outcome.error || 'Identifiants incorrects' });
    }
  };

  const switchMode = (next: 'email' | 'invite') => {
    setMode(next);
    setChoices(null);
    setRingId('');
    setError(null);
  };

  return (
    <Card className="mx-auto w-full max-w-md">
      <CardHeader>
        <CardTitle className="text-2xl">Connexion au Ring</CardTitle>
        <CardDescription>Accédez à l’espace chiffré de votre équipe.</CardDescription>
      </CardHeader>
      <CardContent>
        <div
          role="tablist"
          aria-label="Mode de connexion"
          className="mb-4 grid grid-cols-2 rounded-lg bg-slate-100 p-1"
        >
          {(['email', 'invite'] as const).map((m) => (
            <button
              key={m}
              type="button"
              role="tab"
              aria-selected={mode === m}
              onClick={() => switchMode(m)}
              className={cn(
                'flex min-h-11 items-center justify-center gap-2 rounded-md py-1.5 text-sm font-medium',
                mode === m ? 'bg-white shadow-sm' : 'text-slate-600',
              )}
            >
              {m === 'email' ? (
                <Mail className="size-4" aria-hidden />
              ) : (
                <KeyRound className="size-4" aria-hidden />
              )}
              {m === 'email' ? 'Email' : 'Code d’invitation'}
            </button>
          ))}
        </div>
        {notice?.kind === 'logged_out' ? <LoggedOutNotice /> : null}
        <form onSubmit={(e) => void submit(e)} className="space-y-4">
          {mode === 'email' ? (
            <Field id="ring-email" label="Email">
              <Input
                id="ring-email"
                type="email"
                autoComplete="email"
                required
                value={email}
                onChange={edit(setEmail)}
              />
            </Field>
          ) : (
            <Field id="ring-code" label="Code d’invitation">
              <Input
                id="ring-code"
                required
                autoComplete="off"
                className="font-mono uppercase"
                value={code}
                onChange={edit(setCode)}
              />
            </Field>
          )}
          <Field id="ring-password" label="Mot de passe">
            <PasswordInput
              id="ring-password"
              required
              autoComplete="current-password"
              value={password}
              onChange={edit(setPassword)}
            />
          </Field>
          {choices ? (
            <Field id="ring-choice" label="Sélectionnez votre Ring">
              <NativeSelect
                id="ring-choice"
                value={ringId}
                onChange={(e) => {
                  setRingId(e.target.value);
                  setError(null);
                }}
              >
                <option value="">Choisissez…</option>
                {choices.map((r) => (
                  <option key={r.id} value={r.id}>
                    {r.name} ({ROLE_LABELS[r.role]})
                  </option>
                ))}
              </NativeSelect>
            </Field>
          ) : null}
          {error ? (
            <Alert variant="error" {...(error.title ? { title: error.title } : {})}>
              {error.text}
            </Alert>
          ) : null}
          <Button type="submit" className="w-full" disabled={pending}>
            {pending ? 'Connexion…' : 'Se connecter'}
          </Button>
          <Button type="button" variant="link" className="w-full" onClick={onForgot}>
            Mot de passe oublié&#8239;?
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}

/**
 * After « Déconnexion »: the Ring session is over; an owner who came from the customer space is
 * still signed in there, and is offered to end that session too (issue 28).
 */
function LoggedOutNotice() {
  const customer = useCustomerSession();
  const [done, setDone] = useState(false);
  return (
    <Alert variant="info" className="mb-4">
      {RING_LOGIN_NOTICE_TEXT.logged_out}
      {customer.customer && !done ? (
        <>
          {' '}Vous êtes toujours connecté à l’espace client.
          <Button
            type="button"
            variant="outline"
            size="sm"
            className="mt-2 block"
            onClick={() => void customer.logout().then(() => setDone(true))}
          >
            Se déconnecter aussi de l’espace client
          </Button>
        </>
      ) : null}
      {done ? ' Vous êtes aussi déconnecté de l’espace client.' : null}
    </Alert>
  );
}
