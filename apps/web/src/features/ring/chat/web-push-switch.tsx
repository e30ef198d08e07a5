import { useId, useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { SwitchField } from '@/components/ui/switch';
import { useToast } from '@/components/ui/toast';
import { useRingSession } from '@/lib/auth/ring-session';
import { disableWebPush, enableWebPush, webPushSupport } from './web-push';
import { isWebPushWanted } from './web-push-flag';

/**
 * « Recevoir les notifications quand l’onglet est fermé » (issue 29), in the room's notification
 * preferences: the member's opt-in to Web Push on this device, with what it reveals to whom.
 */
export function WebPushSwitch() {
  const { user, ring } = useRingSession();
  const notify = useToast();
  const id = useId();
  const support = webPushSupport();
  const [on, setOn] = useState(
    () =>
      user !== null &&
      isWebPushWanted(user.id) &&
      support === 'supported' &&
      Notification.permission === 'granted',
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!user || !ring) return null;

  const handleChange = async (checked: boolean) => {
    setBusy(true);
    setError(null);
    try {
      if (checked) {
        await enableWebPush(user, ring);
        notify({ title: 'Notifications activées sur cet appareil', variant: 'success' });
      } else {
        await disableWebPush(user, ring.id, { callServer: true });
        notify({ title: 'Notifications désactivées sur cet appareil', variant: 'success' });
      }
      setOn(checked);
    } catch (cause) {
      setError(cause instanceof Error ? cause.message : 'Action impossible, réessayez.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="mt-4 border-t border-slate-200 pt-4" data-testid="web-push-preference">
      <SwitchField
        id={id}
        label="Recevoir les notifications quand l’onglet est fermé"
        hint={
          support === 'unsupported'
            ? 'Ce navigateur ne le permet pas (ou la page n’est pas servie en HTTPS).'
            : support === 'denied'
              ? 'Les notifications de ce site sont bloquées dans votre navigateur\u202f: autorisez-les d’abord.'
              : `Sur cet appareil seulement. Votre navigateur affiche «\u202fNouveau message dans ${ring.name}\u202f»\u202f: ni l’expéditeur ni le texte ne passent par le service de notification. Celui-ci et notre serveur apprennent seulement qu’un message vous attend, et quand.`
        }
        checked={on}
        disabled={busy || support !== 'supported'}
        onCheckedChange={(checked) => void handleChange(checked)}
      />
      {error ? (
        <Alert variant="error" className="mt-3">
          {error}
        </Alert>
      ) : null}
    </div>
  );
}
