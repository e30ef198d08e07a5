import type { TRingRoomUser } from '@securering/contract';
import { ScanLine } from 'lucide-react';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
  type DialogOpenProps,
} from '@/components/ui/dialog';
import { whoMayConfirm } from '../e2ee/key-confirmers';
import { useRingKeys } from '../e2ee/use-ring-keys';
import { qrModules, scanOutcome, verificationPayload } from '../e2ee/verification-qr';

const SCAN_ERRORS = {
  other_member: 'Ce code QR est celui d’un autre membre.',
  mismatch:
    'Ce code QR ne correspond pas au numéro de sécurité que votre Ring connaît pour ce membre\u202f: ne le marquez pas comme vérifié et prévenez-le.',
  invalid: 'Ce code QR n’est pas un code de vérification de ce Ring.',
} as const;

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
  const [scanning, setScanning] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const mark = () => {
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
  };
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
        {scanning ? (
          <QrScanner
            onText={(text) => {
              const outcome = scanOutcome(text, { ringId: keys.ringId, memberId: user.id, fingerprint });
              if (outcome !== 'match') {
                setError(SCAN_ERRORS[outcome]);
                return false;
              }
              setScanning(false);
              mark();
              return true;
            }}
            onError={(message) => {
              setScanning(false);
              setError(message);
            }}
          />
        ) : (
          <Button variant="outline" disabled={busy} onClick={() => setScanning(true)}>
            <ScanLine aria-hidden /> Scanner son code QR
          </Button>
        )}
        {error ? <Alert variant="error">{error}</Alert> : null}
        <DialogFooter>
          <Button variant="outline" disabled={busy} onClick={() => onOpenChange(false)}>
            Annuler
          </Button>
          <Button disabled={busy} onClick={mark}>
            Les numéros sont identiques
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

/**
 * The camera, read a frame at a time for a QR code (jsQR, loaded with the scanner). `onText`
 * answers whether the code was the one expected (scanning stops) or not (it goes on).
 */
function QrScanner({
  onText,
  onError,
}: {
  onText: (text: string) => boolean;
  onError: (message: string) => void;
}) {
  const video = useRef<HTMLVideoElement>(null);
  const handlers = useRef({ onText, onError });
  useEffect(() => {
    handlers.current = { onText, onError };
  });
  useEffect(() => {
    let stream: MediaStream | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    let lastRefused = '';
    const canvas = document.createElement('canvas');
    void (async () => {
      try {
        const [{ default: jsQR }, media] = await Promise.all([
          import('jsqr'),
          navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false }),
        ]);
        stream = media;
        if (stopped || !video.current) return;
        video.current.srcObject = media;
        await video.current.play().catch(() => undefined);
        const tick = () => {
          if (stopped) return;
          const v = video.current;
          if (v && v.videoWidth > 0) {
            canvas.width = v.videoWidth;
            canvas.height = v.videoHeight;
            const context = canvas.getContext('2d', { willReadFrequently: true });
            context?.drawImage(v, 0, 0);
            const image = context?.getImageData(0, 0, canvas.width, canvas.height);
            const found = image ? jsQR(image.data, image.width, image.height) : null;
            if (found && found.data !== lastRefused) {
              if (handlers.current.onText(found.data)) return;
              lastRefused = found.data;
            }
          }
          timer = setTimeout(tick, 200);
        };
        tick();
      } catch {
        handlers.current.onError(
          'Caméra indisponible\u202f: autorisez-la dans votre navigateur, ou comparez les numéros à voix haute.',
        );
      }
    })();
    return () => {
      stopped = true;
      clearTimeout(timer);
      for (const track of stream?.getTracks() ?? []) track.stop();
    };
  }, []);
  return (
    <div className="space-y-1">
      <video
        ref={video}
        muted
        playsInline
        className="aspect-square w-full rounded-md bg-slate-900 object-cover"
        aria-label="Caméra, visez son code QR"
        data-testid="qr-scanner"
      />
      <p className="text-xs text-slate-500">
        Visez le code QR qu’affiche son écran («&#8239;Afficher mon code QR&#8239;»).
      </p>
    </div>
  );
}

/**
 * « Afficher mon code QR »: this member's safety number as a QR code, for another member to scan
 * in « Vérifier … » (the same number as shown under its name).
 */
export function MyQrDialog({ fingerprint, open, onOpenChange }: DialogOpenProps & { fingerprint: string }) {
  const keys = useRingKeys();
  const payload = verificationPayload(keys.ringId, keys.memberId, fingerprint);
  const modules = useMemo(() => qrModules(payload), [payload]);
  const size = modules.length + 8;
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Mon code QR</DialogTitle>
          <DialogDescription>
            Faites-le scanner par le membre qui vous vérifie («&#8239;Scanner son code QR&#8239;»). Il
            contient votre numéro de sécurité, rien de secret.
          </DialogDescription>
        </DialogHeader>
        <svg
          viewBox={`0 0 ${size} ${size}`}
          className="mx-auto w-64 max-w-full bg-white"
          shapeRendering="crispEdges"
          role="img"
          aria-label={`Code QR du numéro de sécurité ${fingerprint}`}
          data-testid="my-verification-qr"
          data-payload={payload}
        >
          <rect width={size} height={size} fill="#fff" />
          {modules.flatMap((row, r) =>
            row.map((dark, c) =>
              dark ? <rect key={`${r}-${c}`} x={c + 4} y={r + 4} width={1} height={1} /> : null,
            ),
          )}
        </svg>
        <p className="text-center font-mono text-sm text-slate-700">{fingerprint}</p>
        <DialogFooter>
          <Button variant="outline" onClick={() => onOpenChange(false)}>
            Fermer
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

/**
 * « comparer » from a key change in the timeline (loaded on first use). Once the membership log
 * names the new keys: the usual verification (« Vérifier … », mark as verified). While the change
 * waits: the new safety number to compare, and for the owner or a Ring admin « Confirmer la
 * nouvelle clé de … » — bound to the number shown, as in the users panel.
 */
export function KeyChangeDialog({ user, open, onOpenChange }: DialogOpenProps & { user: TRingRoomUser }) {
  const keys = useRingKeys();
  const safety = keys.safety.get(user.id);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Pending as the timeline's notice says it (published keys ≠ the log's), whatever the log's state.
  if (safety?.logFingerprint && safety.fingerprint === safety.logFingerprint)
    return (
      <VerifyMemberDialog
        user={user}
        fingerprint={safety.logFingerprint}
        open={open}
        onOpenChange={onOpenChange}
      />
    );
  const confirm = () => {
    if (!safety) return;
    setBusy(true);
    setError(null);
    void keys
      .confirmKey(user.id, safety.fingerprint)
      .then((done) =>
        done
          ? onOpenChange(false)
          : setError('Confirmation impossible\u202f: ses clés ont changé entre-temps. Comparez le nouveau numéro.'),
      )
      .finally(() => setBusy(false));
  };
  return (
    <Dialog open={open} onOpenChange={(next) => !busy && onOpenChange(next)}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Vérifier {user.username}</DialogTitle>
          <DialogDescription>
            {user.username} a de nouvelles clés, pas encore confirmées dans le journal des membres. Comparez ce
            numéro de sécurité avec celui que {user.username} voit chez lui, en personne ou par téléphone&#8239;:
            rien ne lui est partagé avant la confirmation.
          </DialogDescription>
        </DialogHeader>
        <p
          className="rounded-md bg-slate-100 p-3 text-center font-mono text-base tracking-tight"
          data-testid="verify-safety-number"
        >
          {safety?.fingerprint ?? '—'}
        </p>
        {keys.mayAdmit ? null : (
          <p className="text-sm text-slate-600">À confirmer par {whoMayConfirm(keys.confirmers)}.</p>
        )}
        {error ? <Alert variant="error">{error}</Alert> : null}
        <DialogFooter>
          <Button variant="outline" disabled={busy} onClick={() => onOpenChange(false)}>
            Fermer
          </Button>
          {keys.mayAdmit && safety ? (
            <Button disabled={busy} onClick={confirm}>
              Confirmer la nouvelle clé de {user.username}
            </Button>
          ) : null}
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
