import type { TRingRoomUser } from '@securering/contract';
import { useId, useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Checkbox } from '@/components/ui/checkbox';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Label } from '@/components/ui/label';
import type { MemberSafety } from '../e2ee/keyring';
import { useRingKeys } from '../e2ee/use-ring-keys';

/**
 * The admission dialogs of the room (issue 24), loaded when first opened: « Admettre » shows the
 * safety number to compare and « Partager l'historique »; « Refuser » asks for confirmation.
 */

export function AdmitDialog({
  user,
  safety,
  open,
  onOpenChange,
}: {
  user: TRingRoomUser;
  safety: MemberSafety;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const keys = useRingKeys();
  const historyId = useId();
  const [shareHistory, setShareHistory] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // The number shown is the one signed: the admission is refused if the server lists other keys.
  const shown = safety.fingerprint;
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (!busy) onOpenChange(next);
        if (!next) setError(null);
      }}
    >
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Admettre {user.username}</DialogTitle>
          <DialogDescription>
            Vérifiez que ce numéro de sécurité est celui que {user.username} voit chez lui. S’il diffère,
            quelqu’un d’autre se fait passer pour lui&#8239;: refusez.
          </DialogDescription>
        </DialogHeader>
        <p
          className="rounded-md bg-slate-100 p-3 text-center font-mono text-base tracking-tight"
          data-testid="admission-safety-number"
        >
          {shown}
        </p>
        {keys.historyOffered ? (
          <div className="flex items-start gap-2">
            <Checkbox
              id={historyId}
              checked={shareHistory}
              onCheckedChange={(value) => setShareHistory(value === true)}
            />
            <div className="space-y-0.5">
              <Label htmlFor={historyId}>Partager l’historique</Label>
              <p className="text-xs text-slate-500">
                {user.username} pourra lire les messages et fichiers envoyés avant son admission. Sinon, il
                lit à partir de son admission.
              </p>
            </div>
          </div>
        ) : (
          <p className="text-sm text-slate-600">
            {user.username} lira les messages et fichiers envoyés à partir de son admission.
          </p>
        )}
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
                .admit(user.id, { expectedFingerprint: shown, shareHistory })
                .then((done) => {
                  if (done) onOpenChange(false);
                  else
                    setError(
                      'Admission impossible\u202f: ses clés ont changé ou le Ring a changé entre-temps. Comparez à nouveau son numéro de sécurité.',
                    );
                })
                .catch(() => setError('Admission impossible pour le moment. Réessayez.'))
                .finally(() => setBusy(false));
            }}
          >
            Admettre
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

export function RefuseDialog({
  user,
  open,
  onOpenChange,
}: {
  user: TRingRoomUser;
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
          <DialogTitle>Refuser {user.username}&#8239;?</DialogTitle>
          <DialogDescription>
            {user.username} perd l’accès au Ring tout de suite et ne pourra plus s’y connecter. Pour
            l’accueillir plus tard, il faudra une nouvelle invitation.
          </DialogDescription>
        </DialogHeader>
        {error ? <Alert variant="error">{error}</Alert> : null}
        <DialogFooter>
          <Button variant="outline" disabled={busy} onClick={() => onOpenChange(false)}>
            Annuler
          </Button>
          <Button
            variant="destructive"
            disabled={busy}
            onClick={() => {
              setBusy(true);
              void keys
                .refuse(user.id)
                .then((done) => (done ? onOpenChange(false) : setError('Refus impossible pour le moment.')))
                .catch(() => setError('Refus impossible pour le moment.'))
                .finally(() => setBusy(false));
            }}
          >
            Refuser
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
