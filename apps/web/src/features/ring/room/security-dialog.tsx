import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
  type DialogOpenProps,
} from '@/components/ui/dialog';
import { SecurityPoints } from './security-points';

/**
 * « À propos de la sécurité »: how the Ring protects its exchanges. Loaded with its explanations
 * when the button is first clicked (room-aside.tsx): most visits never open it.
 */
export function SecurityDialog({ open, onOpenChange }: DialogOpenProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>À propos de la sécurité</DialogTitle>
          <DialogDescription>Comment votre Ring protège vos échanges.</DialogDescription>
        </DialogHeader>
        <SecurityPoints />
      </DialogContent>
    </Dialog>
  );
}
