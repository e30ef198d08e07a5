import { ACCOUNT_MESSAGES } from '@securering/contract';
import { CheckCircle2, LinkIcon } from 'lucide-react';
import { Link, useSearchParams } from 'react-router';
import { NewPasswordForm, useResetPasswordRequest } from '@/components/auth/password-forms';
import { PageShell } from '@/components/layout/page-shell';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';

/**
 * /reset-password?token=: the new password form. Without a token, or once the server says the link
 * is invalid or expired, the page says so and offers a new link instead of a form that cannot work.
 */
export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const { reset, linkRefused, failure } = useResetPasswordRequest('/api/auth/reset-password.php', token, [
    ACCOUNT_MESSAGES.resetLinkInvalid,
    ACCOUNT_MESSAGES.invalidLink,
  ]);

  return (
    <PageShell title="Nouveau mot de passe" width="sm">
      <Card>
        <CardContent className="pt-6">
          {!token || linkRefused ? (
            <div className="flex flex-col items-center gap-4 text-center">
              <LinkIcon className="size-10 text-slate-400" aria-hidden />
              <Alert variant="error" title={ACCOUNT_MESSAGES.invalidLink} className="w-full text-left">
                {token
                  ? 'Ce lien de réinitialisation a expiré ou a déjà servi.'
                  : 'Ce lien de réinitialisation est incomplet\u202f: il ne contient pas de jeton.'}{' '}
                Demandez-en un nouveau, il vous sera envoyé par email.
              </Alert>
              <Button asChild>
                <Link to="/forgot-password">Demander un nouveau lien</Link>
              </Button>
            </div>
          ) : reset.isSuccess ? (
            <div className="flex flex-col items-center gap-4 text-center">
              <CheckCircle2 className="size-12 text-emerald-600" aria-hidden />
              <p>{ACCOUNT_MESSAGES.passwordReset}</p>
              <Button asChild>
                <Link to="/client">Se connecter</Link>
              </Button>
            </div>
          ) : (
            <NewPasswordForm
              idPrefix=""
              hint="Au moins 8 caractères, dont 1 majuscule et 1 chiffre."
              check={(password, confirm) =>
                !password || password !== confirm ? ACCOUNT_MESSAGES.passwordMismatch : null
              }
              pending={reset.isPending}
              failure={failure}
              onSave={(password) => reset.mutate(password)}
            />
          )}
        </CardContent>
      </Card>
    </PageShell>
  );
}
