import { ACCOUNT_MESSAGES, MEMBER_ACCESS_API_PATHS, MEMBER_ACCESS_MESSAGES } from '@securering/contract';
import { CheckCircle2, KeyRound, MailCheck } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import {
  ForgotPasswordForm,
  NewPasswordForm,
  useForgotPasswordRequest,
  useResetPasswordRequest,
} from '@/components/auth/password-forms';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';

/** What a reset does to the member's end-to-end keys: nothing, they hang on the passphrase. */
function KeysUnchanged() {
  return (
    <p
      className="flex gap-2 rounded-md bg-slate-50 p-3 text-left text-sm text-slate-600"
      data-testid="keys-unchanged"
    >
      <KeyRound className="mt-0.5 size-4 shrink-0 text-emerald-600" aria-hidden />
      <span>
        Vos clés de chiffrement ne changent pas&#8239;: elles sont protégées par votre phrase secrète, qui est
        distincte du mot de passe. Après la réinitialisation, vous déverrouillez le Ring avec la même phrase
        secrète et relisez vos messages.
      </span>
    </p>
  );
}

/**
 * « Mot de passe oublié » on the Ring login (issue 28): a member's email gets a link (1 hour, single
 * use); the answer is the same for any address. The owner resets its customer account instead.
 */
export function RingForgotPasswordForm({
  initialEmail,
  onBack,
}: {
  initialEmail: string;
  onBack: () => void;
}) {
  const [email, setEmail] = useState(initialEmail);
  const { send, failure } = useForgotPasswordRequest(MEMBER_ACCESS_API_PATHS.forgotPassword);
  return (
    <Card className="mx-auto w-full max-w-md">
      <CardHeader>
        <CardTitle className="text-2xl">Mot de passe oublié</CardTitle>
        <CardDescription>Pour les membres d’un Ring qui se connectent avec leur email.</CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        {send.isSuccess ? (
          <div className="flex flex-col items-center gap-3 text-center" role="status">
            <MailCheck className="size-10 text-emerald-600" aria-hidden />
            <p className="text-slate-700">{MEMBER_ACCESS_MESSAGES.forgotNeutral}</p>
            <p className="text-sm text-slate-600">Le lien est valable 1 heure et ne sert qu’une fois.</p>
          </div>
        ) : (
          <ForgotPasswordForm
            id="ring-forgot-email"
            email={email}
            onEmailChange={setEmail}
            pending={send.isPending}
            failure={failure}
            onSend={(address) => send.mutate(address)}
          />
        )}
        <KeysUnchanged />
        <p className="text-sm text-slate-600">
          Propriétaire du Ring&#8239;? Votre mot de passe est celui de l’espace client&#8239;:{' '}
          <Link to="/forgot-password" className="text-primary underline">
            réinitialisez-le ici
          </Link>
          .
        </p>
        <Button variant="ghost" className="w-full" onClick={onBack}>
          Retour à la connexion
        </Button>
      </CardContent>
    </Card>
  );
}

/** The member's reset link (`/ring-access?reset=…`): a new password, then back to the login. */
export function RingResetPasswordForm({ token, onDone }: { token: string; onDone: () => void }) {
  const { reset, linkRefused, failure } = useResetPasswordRequest(
    MEMBER_ACCESS_API_PATHS.resetPassword,
    token,
    [MEMBER_ACCESS_MESSAGES.resetLinkInvalid, ACCOUNT_MESSAGES.invalidLink],
  );
  return (
    <Card className="mx-auto w-full max-w-md">
      <CardHeader>
        <CardTitle className="text-2xl">Nouveau mot de passe</CardTitle>
        <CardDescription>Votre accès au Ring.</CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        {linkRefused ? (
          <Alert variant="error" title={ACCOUNT_MESSAGES.invalidLink}>
            Ce lien de réinitialisation a expiré ou a déjà servi. Demandez-en un nouveau depuis «&#8239;Mot de
            passe oublié&#8239;».
          </Alert>
        ) : reset.isSuccess ? (
          <div className="flex flex-col items-center gap-3 text-center" role="status">
            <CheckCircle2 className="size-10 text-emerald-600" aria-hidden />
            <p>{MEMBER_ACCESS_MESSAGES.passwordReset}</p>
          </div>
        ) : (
          <NewPasswordForm
            idPrefix="ring-"
            hint="Au moins 8 caractères."
            check={(password, confirm) =>
              password.length < 8
                ? MEMBER_ACCESS_MESSAGES.passwordTooShort
                : password !== confirm
                  ? ACCOUNT_MESSAGES.passwordMismatch
                  : null
            }
            pending={reset.isPending}
            failure={failure}
            onSave={(password) => reset.mutate(password)}
          />
        )}
        <KeysUnchanged />
        <Button variant={reset.isSuccess ? 'default' : 'ghost'} className="w-full" onClick={onDone}>
          {reset.isSuccess ? 'Se connecter' : 'Retour à la connexion'}
        </Button>
      </CardContent>
    </Card>
  );
}
