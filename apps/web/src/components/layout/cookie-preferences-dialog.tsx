import { useState } from 'react';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Switch } from '@/components/ui/switch';
import { ESSENTIAL_CONSENT, type ConsentPreferences } from './cookie-consent';

const CATEGORIES = [
  { key: 'functional', label: 'Fonctionnels', description: 'Mémorisent vos préférences d’affichage.' },
  { key: 'analytics', label: 'Statistiques', description: 'Mesurent l’audience du site de façon agrégée.' },
  { key: 'marketing', label: 'Marketing', description: 'Personnalisent les contenus promotionnels.' },
] as const;

/** "Personnaliser": one switch per category. Loaded when the visitor asks for it. */
export default function CookiePreferencesDialog({
  open,
  onOpenChange,
  onSave,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onSave: (preferences: ConsentPreferences) => void;
}) {
  const [draft, setDraft] = useState<ConsentPreferences>(ESSENTIAL_CONSENT);
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Personnaliser les cookies</DialogTitle>
          <DialogDescription>Choisissez les catégories de cookies que vous acceptez.</DialogDescription>
        </DialogHeader>
        <ul className="divide-y divide-slate-100">
          <li className="flex items-center justify-between gap-4 py-3">
            <div>
              <p className="font-medium">Nécessaires</p>
              <p className="text-sm text-slate-500">
                Indispensables&#8239;: session, sécurité, préférences de consentement.
              </p>
            </div>
            <Switch checked disabled aria-label="Nécessaires (toujours actifs)" />
          </li>
          {CATEGORIES.map((category) => (
            <li key={category.key} className="flex items-center justify-between gap-4 py-3">
              <div>
                <p className="font-medium">{category.label}</p>
                <p className="text-sm text-slate-500">{category.description}</p>
              </div>
              <Switch
                checked={draft[category.key]}
                onCheckedChange={(checked) => setDraft((d) => ({ ...d, [category.key]: checked }))}
                aria-label={category.label}
              />
            </li>
          ))}
        </ul>
        <DialogFooter>
          <Button variant="outline" onClick={() => onOpenChange(false)}>
            Annuler
          </Button>
          <Button onClick={() => onSave(draft)}>Sauvegarder</Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
