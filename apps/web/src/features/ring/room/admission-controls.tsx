import type { TRingRoomUser } from '@securering/contract';
import { UserCheck, UserX } from 'lucide-react';
import { lazy, Suspense, useState } from 'react';
import { Button } from '@/components/ui/button';
import { formatRelative } from '@/lib/relative-time';
import type { MemberSafety } from '../e2ee/keyring';
import { useRingKeys } from '../e2ee/use-ring-keys';

// The dialogs load when first opened: most visits of the room admit nobody.
const AdmitDialog = lazy(() => import('./admission-dialogs').then((m) => ({ default: m.AdmitDialog })));
const RefuseDialog = lazy(() => import('./admission-dialogs').then((m) => ({ default: m.RefuseDialog })));

/**
 * Admission in the room (issue 24): a newcomer who accepted an invitation and published keys reads
 * nothing until the owner or a Ring admin admits it here, after comparing its safety number. The
 * admission is a link of the Ring's signed membership log; only then does the next epoch key reach
 * the newcomer (earlier ones only when « Partager l'historique » is ticked).
 */
export function AdmissionControls({
  user,
  safety,
}: {
  user: TRingRoomUser;
  safety: MemberSafety | undefined;
}) {
  const keys = useRingKeys();
  const [admitOpen, setAdmitOpen] = useState(false);
  const [refuseOpen, setRefuseOpen] = useState(false);
  const joined = user.joinedAt
    ? `Invitation acceptée ${formatRelative(user.joinedAt)}`
    : 'Invitation acceptée';
  return (
    <div
      className="mt-1 space-y-1 rounded-md border border-amber-200 bg-amber-50 p-2 text-xs text-amber-900"
      data-testid="admission-request"
    >
      <p className="font-medium">En attente d’admission</p>
      <p>{joined}.</p>
      {keys.mayAdmit && safety ? (
        <>
          <p>
            Comparez son numéro de sécurité avec {user.username} par un autre moyen (en personne, par
            téléphone) avant de l’admettre&#8239;: rien ne lui est lisible d’ici là.
          </p>
          <div className="flex flex-wrap gap-2 pt-1">
            <Button size="sm" className="h-7 px-2 text-xs" onClick={() => setAdmitOpen(true)}>
              <UserCheck aria-hidden /> Admettre {user.username}
            </Button>
            <Button
              size="sm"
              variant="outline"
              className="h-7 px-2 text-xs"
              onClick={() => setRefuseOpen(true)}
            >
              <UserX aria-hidden /> Refuser {user.username}
            </Button>
          </div>
          <Suspense fallback={null}>
            {admitOpen ? (
              <AdmitDialog user={user} safety={safety} open={admitOpen} onOpenChange={setAdmitOpen} />
            ) : null}
            {refuseOpen ? <RefuseDialog user={user} open={refuseOpen} onOpenChange={setRefuseOpen} /> : null}
          </Suspense>
        </>
      ) : (
        <p>Le propriétaire ou un admin du Ring doit l’admettre.</p>
      )}
    </div>
  );
}

/**
 * A member the customer space reactivated whom the log still says deactivated (issue 24): it reads
 * nothing new until the owner or a Ring admin signs « Réactiver » here.
 */
export function ReactivationControls({ user }: { user: TRingRoomUser }) {
  const keys = useRingKeys();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <div
      className="mt-1 space-y-1 rounded-md border border-amber-200 bg-amber-50 p-2 text-xs text-amber-900"
      data-testid="reactivation-request"
    >
      <p className="font-medium">Désactivé dans le journal des membres</p>
      <p>
        Son compte a été réactivé dans l’espace client, mais il ne lit rien de nouveau tant qu’un membre du
        Ring ne l’a pas réactivé ici.
      </p>
      {keys.mayAdmit ? (
        <Button
          size="sm"
          className="h-7 px-2 text-xs"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            setError(null);
            void keys
              .reactivate(user.id)
              .then((done) => (done ? undefined : setError('Réactivation impossible pour le moment.')))
              .finally(() => setBusy(false));
          }}
        >
          <UserCheck aria-hidden /> Réactiver {user.username}
        </Button>
      ) : (
        <p>Le propriétaire ou un admin du Ring doit le réactiver.</p>
      )}
      {error ? <p role="alert">{error}</p> : null}
    </div>
  );
}
