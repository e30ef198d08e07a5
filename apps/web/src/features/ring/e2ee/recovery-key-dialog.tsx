import { Copy, Download, LifeBuoy, Printer } from 'lucide-react';
import { useState } from 'react';
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
import { useCopyToClipboard } from '@/components/ui/use-copy-to-clipboard';

/**
 * « Clé de secours », shown once when a recovery key was just sealed into the member's record (first
 * unlock, new keys, or an existing member's first unlock since recovery keys exist). It cannot be
 * closed before the member ticks that it is saved: the key is nowhere else and never shown again.
 */
export function RecoveryKeyDialog({
  recoveryKey,
  ringName,
  onDone,
}: {
  recoveryKey: string | null;
  ringName: string;
  onDone: () => void;
}) {
  const [saved, setSaved] = useState(false);
  const copy = useCopyToClipboard(
    { title: 'Clé de secours copiée' },
    { title: 'Copie impossible', description: 'Sélectionnez la clé et copiez-la à la main.' },
  );
  const download = () => {
    if (!recoveryKey) return;
    const text =
      `Clé de secours SecureRing — Ring «\u202f${ringName}\u202f»\n\n${recoveryKey}\n\n` +
      'Elle rouvre vos clés de chiffrement si vous oubliez votre phrase secrète.\n' +
      'Gardez-la hors de cet appareil\u202f: quiconque la détient peut lire vos messages de ce Ring.\n';
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = 'cle-de-secours-securering.txt';
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  return (
    <Dialog open={recoveryKey !== null}>
      {recoveryKey ? (
        <DialogContent
          data-recovery-print=""
          onInteractOutside={(event) => event.preventDefault()}
          onEscapeKeyDown={(event) => event.preventDefault()}
          hideClose
        >
          <DialogHeader>
            <DialogTitle className="flex items-center gap-2">
              <LifeBuoy className="size-5 text-primary" aria-hidden />
              Clé de secours
            </DialogTitle>
            <DialogDescription>
              Si vous oubliez votre phrase secrète, cette clé rouvre vos clés de chiffrement. Elle n’est
              affichée qu’une fois et SecureRing ne peut pas la retrouver&#8239;: imprimez-la ou
              enregistrez-la hors de cet appareil. Quiconque la détient peut lire vos messages de ce Ring.
            </DialogDescription>
          </DialogHeader>
          <p
            data-testid="recovery-key"
            className="rounded-md border border-slate-300 bg-slate-50 p-3 text-center font-mono text-base tracking-wide select-all"
          >
            {recoveryKey}
          </p>
          <div className="flex flex-wrap gap-2 print:hidden">
            <Button type="button" variant="outline" onClick={() => window.print()}>
              <Printer aria-hidden /> Imprimer
            </Button>
            <Button type="button" variant="outline" onClick={() => void copy(recoveryKey)}>
              <Copy aria-hidden /> Copier
            </Button>
            <Button type="button" variant="outline" onClick={download}>
              <Download aria-hidden /> Télécharger
            </Button>
          </div>
          <label className="flex items-start gap-2 text-sm print:hidden" htmlFor="recovery-key-saved">
            <Checkbox
              id="recovery-key-saved"
              checked={saved}
              onCheckedChange={(value) => setSaved(value === true)}
            />
            J’ai imprimé ou enregistré ma clé de secours en lieu sûr.
          </label>
          <DialogFooter className="print:hidden">
            <Button
              type="button"
              disabled={!saved}
              onClick={() => {
                setSaved(false);
                onDone();
              }}
            >
              Terminer
            </Button>
          </DialogFooter>
        </DialogContent>
      ) : null}
    </Dialog>
  );
}
