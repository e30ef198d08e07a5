import { ACCOUNT_MESSAGES, emailError } from '@securering/contract';
import { useMutation } from '@tanstack/react-query';
import { MailCheck } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { PageShell } from '@/components/layout/page-shell';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { Field } from '@/components/ui/label';
import { ApiError, apiRequest } from '@/lib/api-client';

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const send = useMutation({
    mutationFn: (address: string) =>
      apiRequest('/api/auth/forgot-password.php', {
        method: 'POST',
        body: { email: address },
        fallbackError: 'Erreur lors de l’envoi de l’email',
      }),
  });
  const failure =
    send.error instanceof ApiError && send.error.status === 0
      ? 'Erreur de connexion au serveur'
      : send.error
        ? 'Erreur lors de l’envoi de l’email'
        : null;

  return (
    <PageShell title="Mot de passe oublié" width="sm">
      <Card>
        <CardContent className="pt-6">
          {send.isSuccess ? (
            <div className="flex flex-col items-center gap-4 text-center">
              <MailCheck className="size-12 text-emerald-600" aria-hidden />
              <h2 className="text-xl font-semibold">Email envoyé&#8239;!</h2>
              <p className="text-slate-600">
                Si un compte existe pour <strong>{email.trim()}</strong>, vous recevrez un lien pour choisir
                un nouveau mot de passe. Il est valable 1 heure.
              </p>
              <Button variant="outline" onClick={() => send.reset()}>
                Renvoyer l’email
              </Button>
            </div>
          ) : (
            <form
              noValidate
              className="space-y-4"
              onSubmit={(event) => {
                event.preventDefault();
                const error = emailError(email);
                setProblem(
                  error === ACCOUNT_MESSAGES.emailRequired ? ACCOUNT_MESSAGES.enterEmail : (error ?? null),
                );
                if (!error) send.mutate(email.trim());
              }}
            >
              <p className="text-sm text-slate-600">
                Indiquez l’adresse de votre compte&#8239;: nous vous enverrons un lien de réinitialisation.
              </p>
              <Field id="forgot-email" label="Email" error={problem ?? undefined}>
                <Input
                  id="forgot-email"
                  type="email"
                  autoComplete="email"
                  value={email}
                  onChange={(e) => setEmail(e.target.value)}
                />
              </Field>
              {failure ? <Alert variant="error">{failure}</Alert> : null}
              <Button type="submit" className="w-full" disabled={send.isPending}>
                Envoyer le lien
              </Button>
            </form>
          )}
        </CardContent>
      </Card>
      <p className="mt-6 text-center text-sm">
        <Link to="/client" className="text-primary underline">
          Retour à la connexion
        </Link>
      </p>
    </PageShell>
  );
}
