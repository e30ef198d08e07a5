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
  type DialogOpenProps,
} from '@/components/ui/dialog';
import { Label } from '@/components/ui/label';
import type { MemberSafety } from '../e2ee/keyring';
import { useRingKeys, type RingKeys } from '../e2ee/use-ring-keys';
import { giveExistingFiles } from '../files/existing-files-access';
import { filesApi } from '../files/files-api';

/**
 * The admission dialogs of the room (issue 24), loaded when first opened: « Admettre » shows the
 * safety number to compare, « Partager l'historique » (unticked) and « Donner accès aux fichiers
 * existants » (ticked); « Refuser » asks for confirmation.
 */

/** After the admission's new epoch: existing file keys wrapped again for it (existing-files-access.ts). */
async function giveFilesAfterAdmission(keys: RingKeys): Promise<string | null> {
  try {
    const target = await keys.ensureSendableEpoch();
    const { unreadable } = await giveExistingFiles({
      ringId: keys.ringId,
      target,
      epochKey: (epoch) => keys.epochKey(epoch),
      api: filesApi,
    });
    return unreadable > 0
      ? `Admis. ${unreadable} fichier(s) n’ont pas pu être partagés\u202f: ce navigateur n’en a pas la clé.`
      : null;
  } catch {
    return 'Admis, mais l’accès aux fichiers existants n’a pas pu être donné. Réessayez en l’admettant depuis un autre navigateur, ou partagez ces fichiers à nouveau.';
  }
}

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
  const filesId = useId();
  const [shareHistory, setShareHistory] = useState(false);
  const [shareFiles, setShareFiles] = useState(true);
  // Admitted, with something to say about the files: only « Fermer » is left.
  const [admitted, setAdmitted] = useState(false);
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
            {user.username} lira les messages envoyés à partir de son admission.
          </p>
        )}
        {shareHistory ? null : (
          <div className="flex items-start gap-2">
            <Checkbox
              id={filesId}
              checked={shareFiles}
              onCheckedChange={(value) => setShareFiles(value === true)}
            />
            <div className="space-y-0.5">
              <Label htmlFor={filesId}>Donner accès aux fichiers existants</Label>
              <p className="text-xs text-slate-500">
                L’espace de fichiers est partagé&#8239;: {user.username} pourra ouvrir les fichiers déjà
                déposés, sans lire les messages d’avant son admission.
              </p>
            </div>
          </div>
        )}
        {error ? <Alert variant={admitted ? 'warning' : 'error'}>{error}</Alert> : null}
        <DialogFooter>
          <Button variant="outline" disabled={busy} onClick={() => onOpenChange(false)}>
            {admitted ? 'Fermer' : 'Annuler'}
          </Button>
          <Button
            disabled={busy}
            hidden={admitted}
            onClick={() => {
              setBusy(true);
              setError(null);
              // The history carries the files' epochs too: wraps are needed only without it.
              const rewrap = shareFiles && !shareHistory;
              void keys
                .admit(user.id, {
                  expectedFingerprint: shown,
                  shareHistory,
                  shareFiles: shareHistory || shareFiles,
                })
                .then(async (done) => {
                  if (!done) {
                    setError(
                      'Admission impossible\u202f: ses clés ont changé ou le Ring a changé entre-temps. Comparez à nouveau son numéro de sécurité.',
                    );
                    return;
                  }
                  const problem = rewrap ? await giveFilesAfterAdmission(keys) : null;
                  if (!problem) {
                    onOpenChange(false);
                    return;
                  }
                  setAdmitted(true);
                  setError(problem);
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

export function RefuseDialog({ user, open, onOpenChange }: DialogOpenProps & { user: TRingRoomUser }) {
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
