import { EPHEMERAL_MAX_NOTICE, formatSeconds, type TRingInfo } from '@securering/contract';
import { Button } from '@/components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { ENCRYPTION_LABELS, PROTECTION_LABELS } from '@/lib/ring-labels';

/**
 * The Ring's current settings for its owner and admins; the owner changes them in the customer
 * space. Loaded when « Paramètres » is first clicked (room-header.tsx).
 */
export function RingSettingsDialog({
  info,
  open,
  onOpenChange,
}: {
  info: TRingInfo;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const { ring, user } = info;
  const rows: Array<[string, string]> = [
    ['Chiffrement', ENCRYPTION_LABELS[ring.encryptionLevel]],
    [
      'Messages éphémères',
      ring.ephemeral
        ? `Activés\u202f: ${formatSeconds(ring.autoDestroyDelay)} après la première lecture de chacun. ${EPHEMERAL_MAX_NOTICE}`
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
    <Dialog open={open} onOpenChange={onOpenChange}>
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
            {/* A new tab: the room (and its unlocked keys) stays open behind it. */}
            <a href="/client?tab=settings" target="_blank" rel="noopener noreferrer">
              Modifier dans l’espace client
            </a>
          </Button>
        ) : (
          <p className="text-sm text-slate-500">
            Seul le propriétaire du Ring peut modifier ces paramètres, depuis son espace client.
          </p>
        )}
      </DialogContent>
    </Dialog>
  );
}
