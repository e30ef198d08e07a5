import { useState } from 'react';
import { useNavigate } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { Field } from '@/components/ui/label';
import { PasswordInput } from '@/components/ui/password-input';
import { useToast } from '@/components/ui/toast';
import { useRingSession } from '@/lib/auth/ring-session';

/** Invite acceptance (spec 2 §2): code prefilled, username, optional email, password twice. */
export function AcceptInviteForm({ initialCode }: { initialCode: string }) {
  const session = useRingSession();
  const navigate = useNavigate();
  const notify = useToast();
  const [values, setValues] = useState({
    code: initialCode,
    username: '',
    email: '',
    password: '',
    confirm: '',
  });
  const [error, setError] = useState<{ title: string; text: string } | null>(null);
  const [pending, setPending] = useState(false);
  const set = (key: keyof typeof values) => (e: React.ChangeEvent<HTMLInputElement>) =>
    setValues((v) => ({ ...v, [key]: e.target.value }));

  const fail = (title: string, text: string) => {
    setError({ title, text });
    notify({ title, description: text, variant: 'error' });
  };

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (!values.code.trim() || !values.username.trim() || !values.password)
      return fail('Champs requis', 'Remplissez le code, nom et mot de passe.');
    if (values.password.length < 8) return fail('Mot de passe trop court', '8 caractères minimum.');
    if (values.password !== values.confirm) return fail('Erreur', 'Les mots de passe ne correspondent pas.');
    setError(null);
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
      fail('Erreur serveur', 'Veuillez réessayer plus tard.');
    } else {
      fail('Erreur', ('error' in outcome && outcome.error) || 'Acceptation impossible');
    }
  };

  return (
    <Card className="mx-auto w-full max-w-md">
      <CardHeader>
        <CardTitle className="text-2xl">Rejoindre un Ring</CardTitle>
        <CardDescription>
          Vous avez été invité à rejoindre un espace chiffré de bout en bout. Choisissez vos identifiants.
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
