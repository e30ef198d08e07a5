import type { TRingRoomUser } from '@securering/contract';
import { KeyRound } from 'lucide-react';
import { lazy, Suspense, useState } from 'react';

// Opened from the timeline only: loaded on the first « comparer », with the verification dialog.
const KeyChangeDialog = lazy(() =>
  import('../room/verify-member-dialog').then((m) => ({ default: m.KeyChangeDialog })),
);

/**
 * A member's key change in the timeline (issue 28): « La clé de Léa a changé — comparer », where
 * « comparer » opens the safety number to compare (and, for the owner or a Ring admin while the
 * change waits, « Confirmer la nouvelle clé de … »).
 */
export function KeyChangeNotice({ user, pending }: { user: TRingRoomUser; pending: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="flex justify-center">
      <p
        role="note"
        data-testid="key-change-notice"
        data-pending={pending || undefined}
        className="inline-flex flex-wrap items-center gap-1 rounded-full bg-amber-50 px-3 py-1 text-xs text-amber-900"
      >
        <KeyRound className="size-3.5" aria-hidden />
        La clé de {user.username} a changé —{' '}
        <button
          type="button"
          className="font-medium underline underline-offset-2 hover:text-amber-700"
          aria-label={`comparer le numéro de sécurité de ${user.username}`}
          onClick={() => setOpen(true)}
        >
          comparer
        </button>
      </p>
      <Suspense fallback={null}>
        {open ? <KeyChangeDialog user={user} open={open} onOpenChange={setOpen} /> : null}
      </Suspense>
    </div>
  );
}
