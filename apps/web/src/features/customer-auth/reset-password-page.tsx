import { ACCOUNT_MESSAGES } from '@securering/contract';
import { useMutation } from '@tanstack/react-query';
import { CheckCircle2, LinkIcon } from 'lucide-react';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { PageShell } from '@/components/layout/page-shell';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { Field } from '@/components/ui/label';
import { PasswordInput } from '@/components/ui/password-input';
import { ApiError, apiRequest } from '@/lib/api-client';

/**
 * /reset-password?token=: the new password form. Without a token, or once the server says the link
 * is invalid or expired, the page says so and offers a new link instead of a form that cannot work.
 */
export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const reset = useMutation({
    mutationFn: () =>
      apiRequest('/api/auth/reset-password.php', {
        method: 'POST',
        body: { token, password },
        fallbackError: 'Erreur serveur',
      }),
  });
  const linkRefused =
    reset.error instanceof ApiError &&
    [ACCOUNT_MESSAGES.resetLinkInvalid, ACCOUNT_MESSAGES.invalidLink].includes(reset.error.message as never);
  const failure =
    reset.error instanceof ApiError && !linkRefused
      ? reset.error.status === 0
        ? 'Impossible de joindre le serveur'
        : reset.error.message
      : null;

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
            <form
              noValidate
              className="space-y-4"
              onSubmit={(event) => {
                event.preventDefault();
                if (!password || password !== confirm) return setProblem(ACCOUNT_MESSAGES.passwordMismatch);
                setProblem(null);
                reset.mutate();
              }}
            >
              <Field
                id="new-password"
                label="Nouveau mot de passe"
                hint="Au moins 8 caractères, dont 1 majuscule et 1 chiffre."
              >
                <PasswordInput
                  id="new-password"
                  autoComplete="new-password"
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                />
              </Field>
              <Field id="confirm-password" label="Confirmer le mot de passe">
                <PasswordInput
                  id="confirm-password"
                  autoComplete="new-password"
                  value={confirm}
                  onChange={(e) => setConfirm(e.target.value)}
                />
              </Field>
              {problem ? <Alert variant="error">{problem}</Alert> : null}
              {failure ? <Alert variant="error">{failure}</Alert> : null}
              <Button type="submit" className="w-full" disabled={reset.isPending}>
                Enregistrer le mot de passe
              </Button>
            </form>
          )}
        </CardContent>
      </Card>
    </PageShell>
  );
}
