import { E2EE_MESSAGES } from '@securering/contract';
import { KeyRound, Loader2 } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Field } from '@/components/ui/label';
import { PasswordInput } from '@/components/ui/password-input';
import { validatePassphraseForm, type PassphraseErrors } from './passphrase-form';

/** create: first passphrase; unlock: the usual one; reset: new keys; load_failed: record unreadable. */
export type PassphraseDialogMode = 'create' | 'unlock' | 'reset' | 'load_failed';

const DESCRIPTIONS: Record<PassphraseDialogMode, string> = {
  create:
    'Choisissez votre phrase secrète personnelle. Elle protège vos clés de chiffrement et ne quitte jamais ce navigateur\u202f: personne, pas même SecureRing, ne peut la retrouver. Notez-la en lieu sûr.',
  unlock: 'Saisissez votre phrase secrète pour déverrouiller les messages et les fichiers du Ring.',
  reset:
    'De nouvelles clés seront créées sous une nouvelle phrase secrète. Les autres membres verront votre numéro de sécurité changer. L’historique déjà chiffré ne redevient lisible que si un membre vous le partage à nouveau.',
  load_failed: 'Vos clés de chiffrement n’ont pas pu être lues.',
};

interface PassphraseFormProps<Mode> {
  mode: Mode;
  busy: boolean;
  error: string | null;
  onSubmit: (passphrase: string) => Promise<void>;
  onClose: () => void;
  onForgot: () => void;
  onRetryLoad: () => void;
}

/**
 * The passphrase dialog (title "Phrase secrète"): choose one the first time (12 characters and a
 * confirmation), enter it later, or create new keys ("Réinitialiser mes clés"). Key derivation
 * takes about a second: the button shows it is working.
 */
export function PassphraseDialog({ mode, ...form }: PassphraseFormProps<PassphraseDialogMode | null>) {
  const { busy, onClose } = form;
  return (
    <Dialog open={mode !== null} onOpenChange={(open) => !open && !busy && onClose()}>
      {mode ? (
        <DialogContent
          // Keyed by mode: switching to "reset" starts with empty fields.
          key={mode}
          onInteractOutside={(event) => event.preventDefault()}
        >
          <PassphraseForm mode={mode} {...form} />
        </DialogContent>
      ) : null}
    </Dialog>
  );
}

function PassphraseForm({
  mode,
  busy,
  error,
  onSubmit,
  onClose,
  onForgot,
  onRetryLoad,
}: PassphraseFormProps<PassphraseDialogMode>) {
  const [passphrase, setPassphrase] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [errors, setErrors] = useState<PassphraseErrors>({});
  const isNew = mode === 'create' || mode === 'reset';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (mode === 'load_failed' || busy) return;
    const problems = validatePassphraseForm(mode, { passphrase, confirmation });
    setErrors(problems);
    if (problems.passphrase || problems.confirmation) return;
    await onSubmit(passphrase);
    // Nothing stays in the form once it was used.
    setPassphrase('');
    setConfirmation('');
  };

  return (
    <form noValidate onSubmit={(event) => void submit(event)} className="grid gap-4">
      <DialogHeader>
        <DialogTitle className="flex items-center gap-2">
          <KeyRound className="size-5 text-primary" aria-hidden />
          {mode === 'reset' ? 'Réinitialiser mes clés' : 'Phrase secrète'}
        </DialogTitle>
        <DialogDescription>{DESCRIPTIONS[mode]}</DialogDescription>
      </DialogHeader>

      {mode === 'load_failed' ? (
        <Alert variant="error" title={E2EE_MESSAGES.unlockFailed}>
          {error}
        </Alert>
      ) : (
        <>
          <Field id="e2ee-passphrase" label="Phrase secrète" error={errors.passphrase}>
            <PasswordInput
              id="e2ee-passphrase"
              autoComplete={isNew ? 'new-password' : 'current-password'}
              autoFocus
              value={passphrase}
              disabled={busy}
              aria-invalid={Boolean(errors.passphrase)}
              onChange={(e) => setPassphrase(e.target.value)}
            />
          </Field>
          {isNew ? (
            <Field id="e2ee-confirmation" label="Confirmer la phrase secrète" error={errors.confirmation}>
              <PasswordInput
                id="e2ee-confirmation"
                autoComplete="new-password"
                value={confirmation}
                disabled={busy}
                aria-invalid={Boolean(errors.confirmation)}
                onChange={(e) => setConfirmation(e.target.value)}
              />
            </Field>
          ) : null}
          {error && !busy ? <Alert variant="error">{error}</Alert> : null}
        </>
      )}

      <DialogFooter className="items-center">
        {mode === 'unlock' ? (
          <Button type="button" variant="link" className="mr-auto px-0" disabled={busy} onClick={onForgot}>
            Phrase secrète oubliée&#8239;?
          </Button>
        ) : null}
        {mode === 'reset' ? (
          <Button type="button" variant="outline" disabled={busy} onClick={onClose}>
            Annuler
          </Button>
        ) : null}
        {mode === 'load_failed' ? (
          <Button type="button" onClick={onRetryLoad}>
            Réessayer
          </Button>
        ) : (
          <Button type="submit" variant={mode === 'reset' ? 'destructive' : 'default'} disabled={busy}>
            {busy ? <Loader2 className="animate-spin" aria-hidden /> : null}
            {mode === 'reset' ? 'Réinitialiser mes clés' : 'Déverrouiller'}
          </Button>
        )}
      </DialogFooter>
    </form>
  );
}
