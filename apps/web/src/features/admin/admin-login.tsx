import { ShieldCheck } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { Field } from '@/components/ui/label';
import { PasswordInput } from '@/components/ui/password-input';
import { useAdminSession } from '@/lib/auth/admin-session';
import { usePageTitle } from '@/lib/site-settings';

export function AdminLogin() {
  usePageTitle('Administration');
  const session = useAdminSession();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  return (
    <main className="flex min-h-screen items-center justify-center bg-slate-100 px-4">
      <Card className="w-full max-w-sm">
        <CardHeader>
          <CardTitle className="flex items-center gap-2 text-2xl">
            <ShieldCheck className="size-6 text-primary" aria-hidden /> Administration
          </CardTitle>
        </CardHeader>
        <CardContent>
          <form
            className="space-y-4"
            onSubmit={(event) => {
              event.preventDefault();
              setError(null);
              setPending(true);
              void session.login(username.trim(), password).then((problem) => {
                setPending(false);
                setError(problem);
              });
            }}
          >
            <Field id="admin-username" label="Nom d’utilisateur">
              <Input
                id="admin-username"
                autoComplete="username"
                required
                value={username}
                onChange={(e) => setUsername(e.target.value)}
              />
            </Field>
            <Field id="admin-password" label="Mot de passe">
              <PasswordInput
                id="admin-password"
                autoComplete="current-password"
                required
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            </Field>
            {error ? <Alert variant="error">{error}</Alert> : null}
            <Button type="submit" className="w-full" disabled={pending}>
              {pending ? 'Connexion…' : 'Se connecter'}
            </Button>
          </form>
          <p className="mt-6 text-center text-sm">
            <Link to="/" className="text-slate-600 underline">
              Retour au site
            </Link>
          </p>
        </CardContent>
      </Card>
    </main>
  );
}
