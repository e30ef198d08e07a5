import type { TRingRoomUser } from '@securering/contract';
import { UserCheck, UserX } from 'lucide-react';
import { lazy, Suspense, useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { formatRelative } from '@/lib/dates';
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

/** Warnings about the membership log for the room (any member) and for those who admit. */
export function MembershipLogNotices() {
  const keys = useRingKeys();
  return (
    <>
      {keys.logProblem ? (
        <Alert variant="error" title="Chiffrement suspendu">
          {keys.logProblem} Aucune clé n’est partagée ni utilisée tant que ce problème persiste.
        </Alert>
      ) : null}
      {keys.admission === 'waiting' ? (
        <Alert variant="info" title="En attente d’admission">
          Le propriétaire ou un admin du Ring doit vous admettre après avoir comparé votre numéro de sécurité.
          Vous lirez les messages envoyés à partir de votre admission. S’il n’est pas en ligne, votre demande
          l’attend&#8239;: vous serez admis dès qu’il ouvrira le Ring.
        </Alert>
      ) : null}
      {keys.admission === 'key_pending' ? (
        <Alert variant="info" title="Nouvelles clés à confirmer">
          Vos nouvelles clés attendent la confirmation du propriétaire ou d’un admin du Ring, après
          comparaison de votre nouveau numéro de sécurité.
        </Alert>
      ) : null}
      {keys.admission === 'removed' ? (
        <Alert variant="error" title="Accès retiré">
          Vous n’êtes plus membre de ce Ring d’après son journal des membres. Si votre compte vient d’être
          réactivé, le propriétaire ou un admin du Ring doit aussi vous réactiver ici.
        </Alert>
      ) : null}
      {keys.mayAdmit && keys.departed.length > 0 ? <DepartedMembers members={keys.departed} /> : null}
      {keys.noAdminToVouch ? (
        <Alert variant="info" title="Nommez un admin du Ring">
          Si vous oubliez votre phrase secrète, seul un admin du Ring pourra confirmer vos nouvelles clés.
          Sans admin, les clés du Ring seraient perdues pour vous.
        </Alert>
      ) : null}
      {keys.mayAdmit && keys.ignoredPending.length > 0 ? (
        <Alert variant="warning" title="Demande de clés refusée">
          Le serveur a demandé les clés du Ring pour des personnes qu’aucun membre n’a admises. Rien ne leur a
          été partagé.
        </Alert>
      ) : null}
    </>
  );
}

/**
 * Members deactivated in the customer space whom the log still counts in (issue 24): the server no
 * longer serves them, and a person who may admit records it in the log — never the browser alone.
 */
function DepartedMembers({ members }: { members: ReadonlyArray<{ id: string; username: string }> }) {
  const keys = useRingKeys();
  const [busy, setBusy] = useState<string | null>(null);
  return (
    <Alert variant="warning" title="Membres désactivés dans l’espace client">
      <p>
        Le serveur ne les sert plus, mais le journal des membres les compte encore. Enregistrez leur départ
        pour que le journal dise qui lit le Ring.
      </p>
      <ul className="mt-2 space-y-1">
        {members.map((member) => (
          <li key={member.id}>
            <Button
              size="sm"
              variant="outline"
              className="h-7 px-2 text-xs"
              disabled={busy !== null}
              onClick={() => {
                setBusy(member.id);
                void keys.recordDeparture(member.id).finally(() => setBusy(null));
              }}
            >
              <UserX aria-hidden /> Retirer {member.username} du journal
            </Button>
          </li>
        ))}
      </ul>
    </Alert>
  );
}
