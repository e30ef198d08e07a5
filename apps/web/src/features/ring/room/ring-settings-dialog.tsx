import { EPHEMERAL_MAX_NOTICE, formatSeconds, type TRingInfo } from '@securering/contract';
import type { ReadingSettings } from '@securering/e2ee';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { SwitchField } from '@/components/ui/switch';
import { ENCRYPTION_LABELS, PROTECTION_LABELS } from '@/lib/ring-labels';
import { useRingKeys } from '../e2ee/use-ring-keys';

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
        <ReadingSection />
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

/**
 * Typing indicators and read receipts (issue 29): off by default; the owner switches them here,
 * signing a link of the membership log (the customer space cannot: the server must not be able to
 * turn them on). Others see what the verified log says.
 */
function ReadingSection() {
  const keys = useRingKeys();
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { reading } = keys;
  const state = (on: boolean) => (on ? 'Activés' : 'Désactivés');
  const change = async (next: ReadingSettings) => {
    setSaving(true);
    setError(null);
    try {
      if (!(await keys.setReading(next))) setError('Le changement n’a pas pu être signé. Réessayez.');
    } catch {
      setError('Le changement n’a pas pu être signé. Réessayez.');
    } finally {
      setSaving(false);
    }
  };
  if (!keys.isLogOwner)
    return (
      <dl className="grid grid-cols-[12rem_1fr] gap-y-2 text-sm">
        <dt className="text-slate-500">Indicateurs de saisie</dt>
        <dd data-testid="typing-setting">{state(reading.typing)}</dd>
        <dt className="text-slate-500">Accusés de lecture</dt>
        <dd data-testid="receipts-setting">{state(reading.receipts)}</dd>
      </dl>
    );
  return (
    <fieldset className="space-y-3 rounded-lg border border-slate-200 p-3" aria-busy={saving}>
      <legend className="px-1 text-sm font-medium">Indicateurs de lecture</legend>
      <SwitchField
        id="ring-typing-indicators"
        label={'Indicateurs de saisie («\u202fLéa écrit…\u202f»)'}
        checked={reading.typing}
        disabled={saving || keys.state !== 'active'}
        onCheckedChange={(typing) => void change({ ...reading, typing })}
      />
      <SwitchField
        id="ring-read-receipts"
        label={'Accusés de lecture («\u202fLu\u202f»)'}
        checked={reading.receipts}
        disabled={saving || keys.state !== 'active'}
        onCheckedChange={(receipts) => void change({ ...reading, receipts })}
      />
      <p className="text-xs text-slate-500">
        Désactivés par défaut. Votre choix est signé avec vos clés dans le journal des membres&#8239;: le
        serveur ne peut pas les activer à votre place. Activés, ils sont chiffrés de bout en bout, mais le
        serveur voit quand chaque membre écrit ou lit, et dans quelle conversation.
      </p>
      {error ? (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
