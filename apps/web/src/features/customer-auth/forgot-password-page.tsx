import { MailCheck } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { ForgotPasswordForm, useForgotPasswordRequest } from '@/components/auth/password-forms';
import { PageShell } from '@/components/layout/page-shell';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const { send, failure } = useForgotPasswordRequest('/api/auth/forgot-password.php');

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
            <ForgotPasswordForm
              id="forgot-email"
              email={email}
              onEmailChange={setEmail}
              pending={send.isPending}
              failure={failure}
              onSend={(address) => send.mutate(address)}
            >
              <p className="text-sm text-slate-600">
                Indiquez l’adresse de votre compte&#8239;: nous vous enverrons un lien de réinitialisation.
              </p>
            </ForgotPasswordForm>
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
