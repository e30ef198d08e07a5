import { ACCOUNT_MESSAGES, emailError } from '@securering/contract';
import { useMutation } from '@tanstack/react-query';
import { LogIn } from 'lucide-react';
import { useState } from 'react';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { Field } from '@/components/ui/label';
import { PasswordInput } from '@/components/ui/password-input';
import { apiRequest } from '@/lib/api-client';
import { useCustomerSession } from '@/lib/auth/customer-session';
import { safeRedirect } from '@/lib/safe-redirect';
import { usePageTitle } from '@/lib/site-settings';

/** "Connexion Client": shown at /client while signed out. */
export function CustomerLogin() {
  usePageTitle('Connexion Client');
  const location = useLocation();
  const registeredEmail = (location.state as { registeredEmail?: string } | null)?.registeredEmail;
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const session = useCustomerSession();
  const [email, setEmail] = useState(registeredEmail ?? '');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  const resend = useMutation({
    mutationFn: (address: string) =>
      apiRequest('/api/auth/resend-verification.php', {
        method: 'POST',
        body: { email: address },
        fallbackError: 'Échec renvoi',
      }),
  });

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (!email.trim() || !password) return setProblem(ACCOUNT_MESSAGES.fillAllFields);
    setProblem(null);
    setPending(true);
    try {
      if (await session.login(email.trim(), password))
        navigate(safeRedirect(params.get('redirect'), '/client'), { replace: true });
    } catch {
      setProblem('Erreur de connexion');
    } finally {
      setPending(false);
    }
  };

  const requestResend = () => {
    const error = emailError(email);
    if (error)
      return setProblem(error === ACCOUNT_MESSAGES.emailRequired ? ACCOUNT_MESSAGES.enterEmail : error);
    setProblem(null);
    resend.mutate(email.trim());
  };

  const error = problem ?? session.lastError;
  return (
    <main className="mx-auto w-full max-w-md px-4 py-12">
      {registeredEmail ? (
        <Alert variant="success" title="Inscription réussie&#8239;!" className="mb-6">
          Cliquez sur le lien reçu par email pour activer votre compte, puis connectez-vous.
        </Alert>
      ) : null}
      <Card>
        <CardHeader>
          <CardTitle className="flex items-center gap-2 text-2xl">
            <LogIn className="size-6 text-primary" aria-hidden /> Connexion Client
          </CardTitle>
          <CardDescription>Accédez à votre espace pour gérer vos Rings et votre abonnement.</CardDescription>
        </CardHeader>
        <CardContent>
          <form noValidate onSubmit={submit} className="space-y-4">
            <Field id="login-email" label="Email">
              <Input
                id="login-email"
                type="email"
                autoComplete="email"
                value={email}
                onChange={(e) => setEmail(e.target.value)}
              />
            </Field>
            <Field id="login-password" label="Mot de passe">
              <PasswordInput
                id="login-password"
                autoComplete="current-password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            </Field>
            {error ? <Alert variant="error">{error}</Alert> : null}
            <Button type="submit" className="w-full" disabled={pending}>
              {pending ? 'Connexion…' : 'Se connecter'}
            </Button>
          </form>
          <div className="mt-4 space-y-2">
            <Button variant="ghost" className="w-full" onClick={requestResend} disabled={resend.isPending}>
              Renvoyer l’email de vérification
            </Button>
            {resend.isSuccess ? <Alert variant="success">Email renvoyé (si le compte existe).</Alert> : null}
            {resend.isError ? <Alert variant="error">Échec renvoi</Alert> : null}
          </div>
          <nav className="mt-6 flex flex-col items-center gap-2 text-sm" aria-label="Liens du compte">
            <Link to="/register" className="text-primary underline">
              Créer un compte
            </Link>
            <Link to="/forgot-password" className="text-primary underline">
              Mot de passe oublié&#8239;?
            </Link>
            <Link to="/" className="text-slate-600 underline">
              Retour à l’accueil
            </Link>
          </nav>
        </CardContent>
      </Card>
    </main>
  );
}
