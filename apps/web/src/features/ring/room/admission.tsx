import { UserX } from 'lucide-react';
import { lazy, Suspense, useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { whoMayConfirm } from '../e2ee/key-confirmers';
import { useRingKeys } from '../e2ee/use-ring-keys';

// Shown only to a member deactivated and then reactivated: loaded when needed.
const Reading = lazy(() =>
  import('./reactivation-reading').then((m) => ({ default: m.ReadableAfterReactivation })),
);
function ReadableAfterReactivation() {
  return (
    <Suspense fallback={null}>
      <Reading />
    </Suspense>
  );
}

/** Warnings about the membership log for the room (any member) and for those who admit. */
export function MembershipLogNotices() {
  const keys = useRingKeys();
  // Removed from the log while this page was open, then reactivated (issue 28): say what he reads.
  const [wasRemoved, setWasRemoved] = useState(false);
  if (keys.admission === 'removed' && !wasRemoved) setWasRemoved(true);
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
          <span data-testid="key-confirmers">
            À confirmer par {whoMayConfirm(keys.confirmers)}
          </span>
          &#8239;: donnez-lui votre nouveau numéro de sécurité en personne ou par téléphone
          pour qu’il le compare avant de confirmer. Dès la confirmation, vous recevez les clés du Ring et vos
          messages partent.
        </Alert>
      ) : null}
      {keys.admission === 'removed' ? (
        <Alert variant="error" title="Accès retiré">
          Vous n’êtes plus membre de ce Ring d’après son journal des membres. Si votre compte vient d’être
          réactivé, le propriétaire ou un admin du Ring doit aussi vous réactiver ici.
          <ReadableAfterReactivation />
        </Alert>
      ) : null}
      {keys.admission === 'admitted' && wasRemoved ? (
        <Alert variant="success" title="Vous êtes de nouveau membre du Ring">
          <ReadableAfterReactivation />
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
