import { ACCOUNT_MESSAGES, emailError } from '@securering/contract';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { apiRequest } from '@/lib/api-client';

/** Asks for a new verification email; the answer never says whether the account exists. */
export function ResendVerificationForm({ defaultEmail = '' }: { defaultEmail?: string }) {
  const [email, setEmail] = useState(defaultEmail);
  const [problem, setProblem] = useState<string | null>(null);
  const resend = useMutation({
    mutationFn: (address: string) =>
      apiRequest('/api/auth/resend-verification.php', {
        method: 'POST',
        body: { email: address },
        fallbackError: 'Échec renvoi',
      }),
  });
  return (
    <form
      noValidate
      className="space-y-3"
      onSubmit={(event) => {
        event.preventDefault();
        const error = emailError(email);
        setProblem(error === ACCOUNT_MESSAGES.emailRequired ? ACCOUNT_MESSAGES.enterEmail : (error ?? null));
        if (!error) resend.mutate(email.trim());
      }}
    >
      <div className="flex gap-2">
        <Input
          type="email"
          aria-label="Adresse email"
          placeholder="vous@entreprise.fr"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <Button type="submit" variant="outline" disabled={resend.isPending}>
          Renvoyer
        </Button>
      </div>
      {problem ? <Alert variant="error">{problem}</Alert> : null}
      {resend.isSuccess ? <Alert variant="success">Email renvoyé (si le compte existe).</Alert> : null}
      {resend.isError ? <Alert variant="error">Échec renvoi</Alert> : null}
    </form>
  );
}
