import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { Field } from '@/components/ui/label';
import { PasswordInput } from '@/components/ui/password-input';
import { useToast } from '@/components/ui/toast';
import { apiRequest } from '@/lib/api-client';
import { useRingSession } from '@/lib/auth/ring-session';
import { lazySchema } from '@/lib/lazy-schema';

interface Values {
  code: string;
  username: string;
  email: string;
  password: string;
  confirm: string;
}
interface FormError {
  title: string;
  text: string;
  /** A check of the form itself: it goes once that check passes; a server answer goes on edit. */
  local: boolean;
}

/** The form's own checks (spec 2 §5), in order; null when the values may be sent. */
function checkValues(values: Values): FormError | null {
  if (!values.code.trim() || !values.username.trim() || !values.password)
    return { title: 'Champs requis', text: 'Remplissez le code, nom et mot de passe.', local: true };
  if (values.password.length < 8)
    return { title: 'Mot de passe trop court', text: '8 caractères minimum.', local: true };
  if (values.password !== values.confirm)
    return { title: 'Erreur', text: 'Les mots de passe ne correspondent pas.', local: true };
  return null;
}

/**
 * Invite acceptance (spec 2 §2): code prefilled, username, optional email, password twice. The
 * username and email the owner entered are prefilled from the invitation; each error shows once,
 * in the form, and goes when it is fixed.
 */
export function AcceptInviteForm({ initialCode }: { initialCode: string }) {
  const session = useRingSession();
  const navigate = useNavigate();
  const notify = useToast();
  const [values, setValues] = useState<Values>({
    code: initialCode,
    username: '',
    email: '',
    password: '',
    confirm: '',
  });
  const [ringName, setRingName] = useState<string | null>(null);
  const [error, setError] = useState<FormError | null>(null);
  const [pending, setPending] = useState(false);

  useEffect(() => {
    const code = initialCode.trim();
    if (!code) return;
    const controller = new AbortController();
    apiRequest(`/api/rings/invite-info.php?code=${encodeURIComponent(code)}`, {
      schema: lazySchema('ZInviteInfoResponse'),
      signal: controller.signal,
    })
      .then(({ data }) => {
        setRingName(data.ring_name);
        // What the person typed meanwhile wins over the prefill, and so does the field they are in
        // (text appearing under the cursor would end up mixed with what they type next).
        const focused = document.activeElement?.id;
        const keeps = (value: string, id: string) => value !== '' || focused === id;
        setValues((v) => ({
          ...v,
          username: keeps(v.username, 'invite-username') ? v.username : data.username,
          email: keeps(v.email, 'invite-email') ? v.email : (data.email ?? ''),
        }));
      })
      // An unknown or used code prefills nothing; submitting says why.
      .catch(() => undefined);
    return () => controller.abort();
  }, [initialCode]);

  const set = (key: keyof Values) => (e: React.ChangeEvent<HTMLInputElement>) => {
    const next = { ...values, [key]: e.target.value };
    setValues(next);
    // The shown error stays while it still applies: fixed, it goes (a new problem waits for submit).
    if (error) {
      const still = error.local ? checkValues(next) : null;
      setError(still && still.title === error.title ? still : null);
    }
  };

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const problem = checkValues(values);
    setError(problem);
    if (problem) return;
    setPending(true);
    const outcome = await session.acceptInvite({
      invite_code: values.code.trim(),
      username: values.username.trim(),
      email: values.email.trim(),
      password: values.password,
    });
    setPending(false);
    if (outcome.ok) {
      notify({ title: 'Bienvenue dans le Ring', variant: 'success' });
      navigate('/ring');
    } else if ('error' in outcome && outcome.error === 'network') {
      setError({ title: 'Erreur serveur', text: 'Veuillez réessayer plus tard.', local: false });
    } else {
      setError({
        title: 'Erreur',
        text: ('error' in outcome && outcome.error) || 'Acceptation impossible',
        local: false,
      });
    }
  };

  return (
    <Card className="mx-auto w-full max-w-md">
      <CardHeader>
        <CardTitle className="text-2xl">Rejoindre un Ring</CardTitle>
        <CardDescription>
          {ringName
            ? `Vous avez été invité à rejoindre «\u202f${ringName}\u202f», un espace chiffré de bout en bout. Choisissez vos identifiants.`
            : 'Vous avez été invité à rejoindre un espace chiffré de bout en bout. Choisissez vos identifiants.'}
        </CardDescription>
      </CardHeader>
      <CardContent>
        <form noValidate onSubmit={(e) => void submit(e)} className="space-y-4">
          <Field id="invite-code" label="Code d’invitation">
            <Input
              id="invite-code"
              autoComplete="off"
              className="font-mono uppercase"
              value={values.code}
              onChange={set('code')}
            />
          </Field>
          <Field id="invite-username" label="Nom d’utilisateur">
            <Input
              id="invite-username"
              autoComplete="username"
              maxLength={40}
              value={values.username}
              onChange={set('username')}
            />
          </Field>
          <Field
            id="invite-email"
            label="Email (facultatif)"
            hint="Pour vous connecter plus tard avec votre email."
          >
            <Input
              id="invite-email"
              type="email"
              autoComplete="email"
              value={values.email}
              onChange={set('email')}
            />
          </Field>
          <Field id="invite-password" label="Mot de passe" hint="8 caractères minimum.">
            <PasswordInput
              id="invite-password"
              autoComplete="new-password"
              value={values.password}
              onChange={set('password')}
            />
          </Field>
          <Field id="invite-confirm" label="Confirmer le mot de passe">
            <PasswordInput
              id="invite-confirm"
              autoComplete="new-password"
              value={values.confirm}
              onChange={set('confirm')}
            />
          </Field>
          {error ? (
            <Alert variant="error" title={error.title}>
              {error.text}
            </Alert>
          ) : null}
          <Button type="submit" className="w-full" disabled={pending}>
            {pending ? 'Connexion…' : 'Rejoindre le Ring'}
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}
