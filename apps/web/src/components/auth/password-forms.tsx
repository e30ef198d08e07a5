import { ACCOUNT_MESSAGES, emailError } from '@securering/contract';
import { useMutation } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Field } from '@/components/ui/label';
import { PasswordInput } from '@/components/ui/password-input';
import { ApiError, apiRequest } from '@/lib/api-client';

/**
 * Pieces shared by the customer's and the Ring member's « Mot de passe oublié » / « Nouveau mot de
 * passe » screens: the calls (same answers, same French failures) and the two forms. Each screen keeps
 * its own card, texts and links around them.
 */

/** Asks `path` for a reset link; `failure` is the French line to show when the call failed. */
export function useForgotPasswordRequest(path: string) {
  const send = useMutation({
    mutationFn: (address: string) =>
      apiRequest(path, {
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
  return { send, failure };
}

/** The email field of a forgot-password screen: checks the address, then sends it trimmed. */
export function ForgotPasswordForm({
  id,
  email,
  onEmailChange,
  pending,
  failure,
  onSend,
  children,
}: {
  id: string;
  email: string;
  onEmailChange: (email: string) => void;
  pending: boolean;
  failure: string | null;
  onSend: (address: string) => void;
  /** Shown above the field (an explanation), if any. */
  children?: ReactNode;
}) {
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <form
      noValidate
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        const error = emailError(email);
        setProblem(error === ACCOUNT_MESSAGES.emailRequired ? ACCOUNT_MESSAGES.enterEmail : (error ?? null));
        if (!error) onSend(email.trim());
      }}
    >
      {children}
      <Field id={id} label="Email" error={problem ?? undefined}>
        <Input
          id={id}
          type="email"
          autoComplete="email"
          value={email}
          onChange={(e) => onEmailChange(e.target.value)}
        />
      </Field>
      {failure ? <Alert variant="error">{failure}</Alert> : null}
      <Button type="submit" className="w-full" disabled={pending}>
        Envoyer le lien
      </Button>
    </form>
  );
}

/**
 * Sends a new password with the reset `token` to `path`. `linkRefused` when the server answers one of
 * `refusedMessages` (expired or used link: the screen offers a new link instead of the form).
 */
export function useResetPasswordRequest(path: string, token: string, refusedMessages: readonly string[]) {
  const reset = useMutation({
    mutationFn: (password: string) =>
      apiRequest(path, {
        method: 'POST',
        body: { token, password },
        fallbackError: 'Erreur serveur',
      }),
  });
  const linkRefused = reset.error instanceof ApiError && refusedMessages.includes(reset.error.message);
  const failure =
    reset.error instanceof ApiError && !linkRefused
      ? reset.error.status === 0
        ? 'Impossible de joindre le serveur'
        : reset.error.message
      : null;
  return { reset, linkRefused, failure };
}

/** New password + confirmation; `check` returns the French problem that stops the sending, if any. */
export function NewPasswordForm({
  idPrefix,
  hint,
  check,
  pending,
  failure,
  onSave,
}: {
  /** '' or e.g. 'ring-': the fields are `${idPrefix}new-password` and `${idPrefix}confirm-password`. */
  idPrefix: string;
  hint: string;
  check: (password: string, confirm: string) => string | null;
  pending: boolean;
  failure: string | null;
  onSave: (password: string) => void;
}) {
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const passwordId = `${idPrefix}new-password`;
  const confirmId = `${idPrefix}confirm-password`;
  return (
    <form
      noValidate
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        const error = check(password, confirm);
        setProblem(error);
        if (!error) onSave(password);
      }}
    >
      <PasswordField
        id={passwordId}
        label="Nouveau mot de passe"
        hint={hint}
        value={password}
        onChange={setPassword}
      />
      <PasswordField id={confirmId} label="Confirmer le mot de passe" value={confirm} onChange={setConfirm} />
      {problem ? <Alert variant="error">{problem}</Alert> : null}
      {failure ? <Alert variant="error">{failure}</Alert> : null}
      <Button type="submit" className="w-full" disabled={pending}>
        Enregistrer le mot de passe
      </Button>
    </form>
  );
}

function PasswordField({
  id,
  label,
  hint,
  value,
  onChange,
}: {
  id: string;
  label: string;
  hint?: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <Field id={id} label={label} hint={hint}>
      <PasswordInput
        id={id}
        autoComplete="new-password"
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </Field>
  );
}
