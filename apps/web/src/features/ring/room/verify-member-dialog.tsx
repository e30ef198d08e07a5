import type { TRingRoomUser } from '@securering/contract';
import { useState } from 'react';
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
import { useRingKeys } from '../e2ee/use-ring-keys';

/**
 * « Marquer … comme vérifié » (issue 24), loaded when first opened: the safety number of the keys
 * the membership log names for the member, to compare with what the member's own page shows. Once
 * marked, a later change of those keys stops sending to the member until compared again.
 */
export function VerifyMemberDialog({
  user,
  fingerprint,
  open,
  onOpenChange,
}: {
  user: TRingRoomUser;
  /** The safety number of the member's keys in the log (the one the mark binds to). */
  fingerprint: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const keys = useRingKeys();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <Dialog open={open} onOpenChange={(next) => !busy && onOpenChange(next)}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Vérifier {user.username}</DialogTitle>
          <DialogDescription>
            Comparez ce numéro de sécurité avec celui que {user.username} voit chez lui, en personne ou par
            téléphone. S’ils sont identiques, personne ne s’interpose entre vous. Si ses clés changent
            ensuite, l’envoi de messages s’arrêtera jusqu’à une nouvelle comparaison.
          </DialogDescription>
        </DialogHeader>
        <p
          className="rounded-md bg-slate-100 p-3 text-center font-mono text-base tracking-tight"
          data-testid="verify-safety-number"
        >
          {fingerprint}
        </p>
        {error ? <Alert variant="error">{error}</Alert> : null}
        <DialogFooter>
          <Button variant="outline" disabled={busy} onClick={() => onOpenChange(false)}>
            Annuler
          </Button>
          <Button
            disabled={busy}
            onClick={() => {
              setBusy(true);
              setError(null);
              void keys
                .markVerified(user.id, fingerprint)
                .then((done) =>
                  done
                    ? onOpenChange(false)
                    : setError(
                        'Vérification impossible\u202f: ses clés ont changé entre-temps. Comparez le nouveau numéro.',
                      ),
                )
                .finally(() => setBusy(false));
            }}
          >
            Les numéros sont identiques
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
