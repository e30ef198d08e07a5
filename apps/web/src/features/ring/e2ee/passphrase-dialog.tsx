import { E2EE_MESSAGES } from '@securering/contract';
import { MIN_PASSPHRASE_LENGTH } from '@securering/e2ee';
import { KeyRound, Loader2 } from 'lucide-react';
import { useEffect, useState, type FormEvent } from 'react';
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
import { Input } from '@/components/ui/input';
import { PasswordInput } from '@/components/ui/password-input';
import { isAccountPassword } from '@/lib/auth/account-password';
import {
  STRENGTH_LABELS,
  strengthProblem,
  validatePassphraseForm,
  type PassphraseErrors,
} from './passphrase-form';
import { estimatePassphraseStrength, type PassphraseStrength } from './passphrase-strength';

/**
 * create: first passphrase; unlock: the usual one; reset: new keys; recover: the recovery key and
 * a new passphrase; load_failed: record unreadable.
 */
export type PassphraseDialogMode = 'create' | 'unlock' | 'reset' | 'recover' | 'load_failed';

const DESCRIPTIONS: Record<PassphraseDialogMode, string> = {
  create:
    'Choisissez votre phrase secrète personnelle. Elle protège vos clés de chiffrement et ne quitte jamais ce navigateur\u202f: personne, pas même SecureRing, ne peut la retrouver. Notez-la en lieu sûr.',
  unlock: 'Saisissez votre phrase secrète pour déverrouiller les messages et les fichiers du Ring.',
  reset:
    'De nouvelles clés seront créées sous une nouvelle phrase secrète. Les autres membres verront votre numéro de sécurité changer. Une fois vos nouvelles clés confirmées, le navigateur d’un membre en ligne vous repartage automatiquement l’historique depuis votre admission.',
  recover:
    'Saisissez votre clé de secours (32 caractères, par groupes de 4) puis choisissez une nouvelle phrase secrète. Vos clés et votre historique restent les mêmes.',
  load_failed: 'Vos clés de chiffrement n’ont pas pu être lues.',
};

const TITLES: Record<PassphraseDialogMode, string> = {
  create: 'Phrase secrète',
  unlock: 'Phrase secrète',
  reset: 'Réinitialiser mes clés',
  recover: 'J’ai oublié ma phrase secrète',
  load_failed: 'Phrase secrète',
};

const METER_COLORS = ['bg-red-600', 'bg-red-500', 'bg-amber-500', 'bg-lime-600', 'bg-emerald-600'] as const;

interface PassphraseFormProps<Mode> {
  mode: Mode;
  busy: boolean;
  error: string | null;
  /** Words an attacker would try first for this member (username, email, Ring name). */
  userInputs: readonly string[];
  /** The keys are remembered on this device now (the box starts ticked only then). */
  remembered?: boolean;
  /** Resolves true when the keys opened (the form then forgets what was typed). */
  onSubmit: (passphrase: string, recoveryKey: string, remember: boolean) => Promise<boolean>;
  onClose: () => void;
  /** « J'ai oublié ma phrase secrète »: the recovery form. */
  onRecover: () => void;
  /** No recovery key: new keys (« Réinitialiser mes clés »). */
  onForgot: () => void;
  onRetryLoad: () => void;
}

/** The strength meter of a new passphrase: zxcvbn's score with its French advice. */
function StrengthMeter({ passphrase, userInputs }: { passphrase: string; userInputs: readonly string[] }) {
  const [strength, setStrength] = useState<PassphraseStrength | null>(null);
  const inputsKey = userInputs.join('\n');
  useEffect(() => {
    if (!passphrase) return;
    let live = true;
    const timer = setTimeout(() => {
      estimatePassphraseStrength(passphrase, inputsKey.split('\n')).then(
        (result) => live && setStrength(result),
        () => live && setStrength(null),
      );
    }, 150);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [passphrase, inputsKey]);
  const shown = passphrase ? strength : null;
  const advice = shown ? [shown.warning, ...shown.suggestions].filter(Boolean) : [];
  return (
    <div className="grid gap-1" data-testid="passphrase-strength" data-score={shown?.score ?? ''}>
      <div className="flex gap-1" aria-hidden>
        {[0, 1, 2, 3].map((step) => (
          <span
            key={step}
            className={`h-1.5 flex-1 rounded ${shown && shown.score > step ? METER_COLORS[shown.score] : 'bg-slate-200'}`}
          />
        ))}
      </div>
      <p className="text-xs text-slate-600" aria-live="polite">
        {shown
          ? `Robustesse\u202f: ${STRENGTH_LABELS[shown.score]}${shown.score < 4 ? ' (très forte exigée)' : ''}`
          : `Robustesse\u202f: ${passphrase ? 'calcul…' : 'aucune saisie'} (très forte exigée)`}
      </p>
      {advice.length > 0 ? (
        <ul className="list-disc pl-5 text-xs text-slate-600">
          {advice.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/**
 * The passphrase dialog (title "Phrase secrète"): choose one the first time (12 characters, a
 * confirmation, a strength meter; a guessable one or the account password is refused), enter it
 * later, reopen the keys with the recovery key and a new passphrase (« J'ai oublié ma phrase
 * secrète »), or create new keys ("Réinitialiser mes clés"). Argon2id takes about a second: the
 * button shows it is working.
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
  onRecover,
  onForgot,
  onRetryLoad,
  userInputs,
  remembered = false,
}: PassphraseFormProps<PassphraseDialogMode>) {
  const [passphrase, setPassphrase] = useState('');
  // Off by default: ticked only by the person (or kept ticked when it already was).
  const [remember, setRemember] = useState(remembered);
  const [confirmation, setConfirmation] = useState('');
  const [recoveryKey, setRecoveryKey] = useState('');
  const [errors, setErrors] = useState<PassphraseErrors & { recoveryKey?: string }>({});
  const [checking, setChecking] = useState(false);
  const isNew = mode === 'create' || mode === 'reset' || mode === 'recover';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (mode === 'load_failed' || busy || checking) return;
    if (mode === 'recover' && !recoveryKey.trim()) {
      setErrors({ recoveryKey: 'Saisissez votre clé de secours' });
      return;
    }
    const problems = validatePassphraseForm(mode, { passphrase, confirmation });
    setErrors(problems);
    if (problems.passphrase || problems.confirmation) return;
    if (isNew) {
      setChecking(true);
      try {
        const [strength, same] = await Promise.all([
          estimatePassphraseStrength(passphrase, userInputs),
          isAccountPassword(passphrase),
        ]);
        const problem = strengthProblem(strength, same);
        if (problem) {
          setErrors({ passphrase: problem });
          return;
        }
      } catch {
        setErrors({ passphrase: 'L’estimation de la robustesse n’a pas pu se charger\u202f: réessayez.' });
        return;
      } finally {
        setChecking(false);
      }
    }
    // Nothing stays in the form once the keys opened; a wrong passphrase stays to be corrected.
    if (!(await onSubmit(passphrase, recoveryKey, remember))) return;
    setPassphrase('');
    setConfirmation('');
    setRecoveryKey('');
  };
  const working = busy || checking;

  return (
    <form noValidate onSubmit={(event) => void submit(event)} className="grid gap-4">
      <DialogHeader>
        <DialogTitle className="flex items-center gap-2">
          <KeyRound className="size-5 text-primary" aria-hidden />
          {TITLES[mode]}
        </DialogTitle>
        <DialogDescription>{DESCRIPTIONS[mode]}</DialogDescription>
      </DialogHeader>

      {mode === 'load_failed' ? (
        <Alert variant="error" title={E2EE_MESSAGES.unlockFailed}>
          {error}
        </Alert>
      ) : (
        <>
          {mode === 'recover' ? (
            <Field id="e2ee-recovery-key" label="Clé de secours" error={errors.recoveryKey}>
              <Input
                id="e2ee-recovery-key"
                autoComplete="off"
                spellCheck={false}
                className="font-mono uppercase"
                autoFocus
                value={recoveryKey}
                disabled={working}
                aria-invalid={Boolean(errors.recoveryKey)}
                onChange={(e) => setRecoveryKey(e.target.value)}
              />
            </Field>
          ) : null}
          <Field
            id="e2ee-passphrase"
            label={mode === 'recover' ? 'Nouvelle phrase secrète' : 'Phrase secrète'}
            error={errors.passphrase}
            hint={
              isNew
                ? `Au moins ${MIN_PASSPHRASE_LENGTH} caractères. Plusieurs mots inattendus valent mieux qu’un mot compliqué.`
                : undefined
            }
          >
            <PasswordInput
              id="e2ee-passphrase"
              autoComplete={isNew ? 'new-password' : 'current-password'}
              autoFocus={mode !== 'recover'}
              value={passphrase}
              disabled={working}
              aria-invalid={Boolean(errors.passphrase)}
              onChange={(e) => setPassphrase(e.target.value)}
            />
          </Field>
          {isNew ? <StrengthMeter passphrase={passphrase} userInputs={userInputs} /> : null}
          {isNew ? (
            <Field id="e2ee-confirmation" label="Confirmer la phrase secrète" error={errors.confirmation}>
              <PasswordInput
                id="e2ee-confirmation"
                autoComplete="new-password"
                value={confirmation}
                disabled={working}
                aria-invalid={Boolean(errors.confirmation)}
                onChange={(e) => setConfirmation(e.target.value)}
              />
            </Field>
          ) : null}
          {error && !busy ? (
            error === E2EE_MESSAGES.unlockFailed ? (
              <Alert variant="error" title={E2EE_MESSAGES.unlockFailed}>
                Vérifiez votre phrase secrète
              </Alert>
            ) : (
              <Alert variant="error">{error}</Alert>
            )
          ) : null}
          <div className="grid gap-1 text-sm">
            <label className="flex items-center gap-2 font-medium text-slate-700">
              <input
                type="checkbox"
                className="size-4 accent-primary"
                checked={remember}
                disabled={working}
                aria-describedby="e2ee-remember-help"
                onChange={(e) => setRemember(e.target.checked)}
              />
              Se souvenir sur cet appareil
            </label>
            <p id="e2ee-remember-help" className="text-xs text-slate-600">
              Vos clés restent dans ce navigateur, non exportables&#8239;: un rechargement ne redemande pas la
              phrase secrète. Elles sont effacées à la déconnexion. Jamais sur un ordinateur partagé.
            </p>
          </div>
          {mode === 'recover' ? (
            <p className="text-sm text-slate-600">
              Sans clé de secours, personne ne peut rouvrir vos clés actuelles&#8239;: créez-en de nouvelles
              («&#8239;Réinitialiser mes clés&#8239;»), puis demandez au propriétaire ou à un administrateur du Ring de
              confirmer vos nouvelles clés pour vous réadmettre. L’historique depuis votre admission vous est
              ensuite repartagé automatiquement par le navigateur d’un membre en ligne.
            </p>
          ) : null}
        </>
      )}

      <DialogFooter className="items-center">
        {mode === 'unlock' ? (
          <Button
            type="button"
            variant="link"
            className="mr-auto px-0"
            disabled={working}
            onClick={onRecover}
          >
            J’ai oublié ma phrase secrète
          </Button>
        ) : null}
        {mode === 'recover' ? (
          <Button type="button" variant="link" className="mr-auto px-0" disabled={working} onClick={onForgot}>
            Je n’ai pas de clé de secours
          </Button>
        ) : null}
        {mode === 'reset' || mode === 'recover' ? (
          <Button type="button" variant="outline" disabled={working} onClick={onClose}>
            Annuler
          </Button>
        ) : null}
        {mode === 'load_failed' ? (
          <Button type="button" onClick={onRetryLoad}>
            Réessayer
          </Button>
        ) : (
          <Button type="submit" variant={mode === 'reset' ? 'destructive' : 'default'} disabled={working}>
            {working ? <Loader2 className="animate-spin" aria-hidden /> : null}
            {mode === 'reset'
              ? 'Réinitialiser mes clés'
              : mode === 'recover'
                ? 'Rouvrir mes clés'
                : mode === 'create'
                  ? 'Créer ma phrase secrète'
                  : 'Déverrouiller'}
          </Button>
        )}
      </DialogFooter>
    </form>
  );
}
