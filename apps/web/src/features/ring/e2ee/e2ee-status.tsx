import { E2EE_MESSAGES } from '@securering/contract';
import { KeyRound, Loader2, ShieldAlert, ShieldCheck } from 'lucide-react';
import { cn } from '@/lib/utils';
import type { KeyringStatus } from './keyring-policy';
import { useRingKeys } from './use-ring-keys';

/** The spec's texts of each encryption state (spec 2 §4). */
export const E2EE_STATUS_TEXT: Record<KeyringStatus, string> = {
  locked: E2EE_MESSAGES.passphraseMissing,
  waiting_keys: E2EE_MESSAGES.waitingKeys,
  active: E2EE_MESSAGES.active,
  failed: E2EE_MESSAGES.unlockFailed,
};

const STYLE: Record<KeyringStatus, { dot: string; icon: typeof ShieldCheck }> = {
  locked: { dot: 'bg-amber-400', icon: KeyRound },
  waiting_keys: { dot: 'bg-amber-400', icon: Loader2 },
  active: { dot: 'bg-emerald-500', icon: ShieldCheck },
  failed: { dot: 'bg-red-500', icon: ShieldAlert },
};

/**
 * The room's end-to-end encryption status (`data-e2ee-state`): it says "actif" only when this tab
 * holds the Ring's current key. While locked or failed it opens the passphrase dialog.
 */
export function E2eeStatus({ className }: { className?: string }) {
  const keys = useRingKeys();
  const { dot, icon: Icon } = STYLE[keys.state];
  // A failure of the membership log is not a passphrase problem: nothing to unlock.
  const actionable = (keys.state === 'locked' || keys.state === 'failed') && !keys.logProblem;
  const text =
    keys.state === 'waiting_keys' && keys.admission === 'waiting'
      ? 'En attente d’admission'
      : keys.logProblem
        ? 'Chiffrement suspendu'
        : E2EE_STATUS_TEXT[keys.state];
  const content = (
    <>
      <span className={cn('size-2 rounded-full', dot)} aria-hidden />
      <Icon
        className={cn('size-3 text-slate-500', keys.state === 'waiting_keys' && 'animate-spin')}
        aria-hidden
      />
      <span className="font-medium">{text}</span>
    </>
  );
  const classes = cn(
    'inline-flex items-center gap-1.5 rounded-full border border-slate-200 bg-white px-2.5 py-1',
    className,
  );
  return actionable ? (
    <button
      type="button"
      data-e2ee-state={keys.state}
      className={cn(classes, 'hover:bg-slate-50')}
      title="Déverrouiller"
      onClick={keys.openUnlock}
    >
      {content}
    </button>
  ) : (
    <span role="status" data-e2ee-state={keys.state} className={classes}>
      {content}
    </span>
  );
}
