import { EPHEMERAL_MAX_NOTICE, type TRingInfo } from '@securering/contract';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { ENCRYPTION_LABELS, PROTECTION_LABELS } from '@/lib/ring-labels';

/** The Ring's current settings for its owner and admins; the owner changes them in the customer space. */
export function RingSettingsDialog({ info }: { info: TRingInfo }) {
  const { ring, user } = info;
  const rows: Array<[string, string]> = [
    ['Chiffrement', ENCRYPTION_LABELS[ring.encryptionLevel]],
    [
      'Messages éphémères',
      ring.ephemeral
        ? `Activés\u202f: ${ring.autoDestroyDelay}\u00a0s après la première lecture de chacun. ${EPHEMERAL_MAX_NOTICE}`
        : 'Désactivés',
    ],
    ['Protection anti-capture', PROTECTION_LABELS[ring.screenProtection.level]],
    [
      'Appels vocaux',
      ring.capabilities.voice
        ? ring.voiceAdminOnly
          ? 'Réservés aux administrateurs'
          : 'Autorisés'
        : 'Désactivés',
    ],
    ['Appels vidéo', ring.capabilities.video ? 'Autorisés' : 'Désactivés'],
    ['Taille maximale des fichiers', `${ring.maxFileSize} Mo`],
  ];
  return (
    <DialogContent>
      <DialogHeader>
        <DialogTitle>Paramètres du Ring</DialogTitle>
        <DialogDescription>{ring.name}</DialogDescription>
      </DialogHeader>
      <dl className="grid grid-cols-[12rem_1fr] gap-y-2 text-sm">
        {rows.map(([label, value]) => (
          <div key={label} className="contents">
            <dt className="text-slate-500">{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {user.role === 'owner' ? (
        <Button asChild>
          <Link to="/client?tab=settings">Modifier dans l’espace client</Link>
        </Button>
      ) : (
        <p className="text-sm text-slate-500">
          Seul le propriétaire du Ring peut modifier ces paramètres, depuis son espace client.
        </p>
      )}
    </DialogContent>
  );
}
