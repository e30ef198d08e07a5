import { LEGAL_PAGES } from '@securering/contract';
import { ExternalLink } from 'lucide-react';
import { Textarea } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import type { SettingsMap } from '@/lib/site-settings';
import { useSettingsForm, type SettingField } from './site-api';
import { SettingsFormCard } from './settings-form-card';

const LEGAL_FIELDS: SettingField[] = LEGAL_PAGES.map((page) => ({ key: page.key, label: page.label }));

/** "Pages légales": the HTML of /terms, /privacy and /legal, with a preview of each public page. */
export function SiteLegalSection({ initial, canEdit }: { initial: SettingsMap; canEdit: boolean }) {
  const form = useSettingsForm('legal', LEGAL_FIELDS, initial);
  return (
    <SettingsFormCard
      title="Pages légales"
      description="Contenu HTML (titres, paragraphes, listes, liens). Les balises non autorisées sont retirées à l’enregistrement. L’aperçu montre la page publique telle qu’enregistrée."
      canEdit={canEdit}
      saving={form.saving}
      onSave={form.submit}
      saveLabel="Enregistrer les pages légales"
      contentClassName="space-y-6"
    >
      {LEGAL_PAGES.map((page) => {
        const id = `legal-${page.key}`;
        const error = form.errors[page.key];
        return (
          <div key={page.key} className="space-y-1.5">
            <div className="flex items-center justify-between gap-2">
              <Label htmlFor={id}>{page.label}</Label>
              <a
                href={page.path}
                target="_blank"
                rel="noopener noreferrer"
                className="inline-flex items-center gap-1 text-sm text-primary underline-offset-4 hover:underline"
              >
                <ExternalLink className="size-4" aria-hidden /> Aperçu
                <span className="sr-only"> de la page {page.path} (nouvel onglet)</span>
              </a>
            </div>
            <Textarea
              id={id}
              rows={15}
              value={form.values[page.key] ?? ''}
              disabled={!canEdit || form.saving}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${id}-error` : undefined}
              onChange={(e) => form.set(page.key, e.target.value)}
              className="font-mono text-xs"
            />
            {error ? (
              <p id={`${id}-error`} role="alert" className="text-sm text-red-600">
                {error}
              </p>
            ) : null}
          </div>
        );
      })}
    </SettingsFormCard>
  );
}
