import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
  type DialogOpenProps,
} from '@/components/ui/dialog';
import { NotificationSettingsPanel } from '@/components/notification-settings-panel';
import { WebPushSwitch } from './web-push-switch';

/**
 * « Préférences de notification » in the room (issue 25): the same settings as the customer
 * space's « Notifications d'appel » — one record per person, an owner's shared with its customer
 * account — applied by the room to incoming calls and messages. Loaded with the dialog.
 */
export function NotificationPreferencesDialog({ open, onOpenChange }: DialogOpenProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="max-w-xl">
        <DialogHeader>
          <DialogTitle>Préférences de notification</DialogTitle>
          <DialogDescription>
            Sonnerie, volume, vibration et notifications de bureau pour vos appels et vos messages, sur tous
            vos appareils.
          </DialogDescription>
        </DialogHeader>
        <NotificationSettingsPanel session="ring" />
        <WebPushSwitch />
      </DialogContent>
    </Dialog>
  );
}
