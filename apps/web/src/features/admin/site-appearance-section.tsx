import {
  SITE_IMAGE_ACCEPT,
  SITE_UPLOAD_MESSAGES,
  checkSiteImageFile,
  type SiteImageType,
} from '@securering/contract';
import { ImageUp } from 'lucide-react';
import { useId, useRef, useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { useToast } from '@/components/ui/toast';
import { DEFAULT_GENERAL, type SettingsMap } from '@/lib/site-settings';
import { useSettingsForm, useUploadSiteImage, type SettingField } from './site-api';
import { SettingsFormCard } from './settings-form-card';

const COLOR_FIELDS: SettingField[] = [
  { key: 'primary_color', label: 'Couleur principale', fallback: DEFAULT_GENERAL.primary_color! },
  { key: 'secondary_color', label: 'Couleur secondaire', fallback: DEFAULT_GENERAL.secondary_color! },
];
const HEX = /^#[0-9a-fA-F]{6}$/;

/** Black or white text, whichever reads better on the colour (WCAG relative luminance). */
export function readableTextOn(hex: string): string {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return luminance > 0.4 ? '#0f172a' : '#ffffff';
}

/** "Apparence": brand colours with a live preview, logo and favicon. */
export function SiteAppearanceSection({ initial, canEdit }: { initial: SettingsMap; canEdit: boolean }) {
  const form = useSettingsForm('general', COLOR_FIELDS, initial);
  const shown = (key: string) => {
    const value = form.values[key] ?? '';
    return HEX.test(value) ? value.toLowerCase() : (DEFAULT_GENERAL[key] ?? '#000000');
  };
  const primary = shown('primary_color');
  const secondary = shown('secondary_color');
  const siteName = initial.site_name || 'SecureRing';

  return (
    <div className="space-y-6">
      <SettingsFormCard
        title="Couleurs"
        description="L’aperçu suit vos choix avant l’enregistrement."
        canEdit={canEdit}
        saving={form.saving}
        onSave={form.submit}
        saveLabel="Enregistrer les couleurs"
        contentClassName="grid gap-6 lg:grid-cols-2"
      >
        <div className="space-y-4">
          {COLOR_FIELDS.map((field) => {
            const id = `site-${field.key}`;
            const error = form.errors[field.key];
            return (
              <div key={field.key} className="space-y-1.5">
                <Label htmlFor={id}>{field.label}</Label>
                <div className="flex items-center gap-2">
                  <input
                    type="color"
                    aria-label={`${field.label} (sélecteur)`}
                    value={shown(field.key)}
                    disabled={!canEdit || form.saving}
                    onChange={(e) => form.set(field.key, e.target.value)}
                    className="h-10 w-14 cursor-pointer rounded-md border border-slate-300 bg-white p-1 disabled:cursor-not-allowed"
                  />
                  <Input
                    id={id}
                    value={form.values[field.key] ?? ''}
                    maxLength={7}
                    placeholder={field.fallback}
                    disabled={!canEdit || form.saving}
                    aria-invalid={error ? true : undefined}
                    aria-describedby={error ? `${id}-error` : undefined}
                    onChange={(e) => form.set(field.key, e.target.value.trim())}
                    className="max-w-32 font-mono"
                  />
                </div>
                {error ? (
                  <p id={`${id}-error`} role="alert" className="text-sm text-red-600">
                    {error}
                  </p>
                ) : (
                  <p className="text-xs text-slate-500">Format #rrggbb (défaut {field.fallback}).</p>
                )}
              </div>
            );
          })}
        </div>
        <ColourPreview
          primary={primary}
          secondary={secondary}
          siteName={siteName}
          logo={initial.logo ?? ''}
        />
      </SettingsFormCard>

      <Card>
        <CardHeader>
          <CardTitle>Logo et favicon</CardTitle>
          <CardDescription>
            PNG, JPEG, GIF, WEBP ou ICO, 5 Mo au plus. Le SVG n’est pas accepté.
          </CardDescription>
        </CardHeader>
        <CardContent className="grid gap-6 md:grid-cols-2">
          <ImageUpload type="logo" label="Logo" current={initial.logo ?? ''} canEdit={canEdit} />
          <ImageUpload type="favicon" label="Favicon" current={initial.favicon ?? ''} canEdit={canEdit} />
        </CardContent>
      </Card>
    </div>
  );
}

/** A site header, buttons and a link drawn in the chosen colours. */
function ColourPreview({
  primary,
  secondary,
  siteName,
  logo,
}: {
  primary: string;
  secondary: string;
  siteName: string;
  logo: string;
}) {
  return (
    <figure aria-label="Aperçu des couleurs" className="overflow-hidden rounded-lg border border-slate-200">
      <div
        className="flex items-center gap-2 px-4 py-3"
        style={{ backgroundColor: primary, color: readableTextOn(primary) }}
      >
        {logo ? <img src={logo} alt="" className="h-6 w-auto" /> : null}
        <span className="font-semibold">{siteName}</span>
        <span className="ml-auto text-sm opacity-90">Tarifs · Contact</span>
      </div>
      <div className="space-y-3 bg-white p-4">
        <p className="text-sm text-slate-700">
          Vos échanges d’équipe, chiffrés de bout en bout.{' '}
          <span className="underline" style={{ color: primary }}>
            En savoir plus
          </span>
        </p>
        <div className="flex flex-wrap gap-2">
          <span
            className="inline-flex h-9 items-center rounded-md px-4 text-sm font-medium shadow-sm"
            style={{ backgroundColor: primary, color: readableTextOn(primary) }}
          >
            Bouton principal
          </span>
          <span
            className="inline-flex h-9 items-center rounded-md px-4 text-sm font-medium"
            style={{ backgroundColor: secondary, color: readableTextOn(secondary) }}
          >
            Bouton secondaire
          </span>
          <span
            className="inline-flex items-center rounded-full px-2.5 text-xs font-medium"
            style={{ border: `1px solid ${secondary}`, color: secondary }}
          >
            Badge
          </span>
        </div>
      </div>
      <figcaption className="border-t border-slate-200 bg-slate-50 px-4 py-2 text-xs text-slate-500">
        Aperçu — {primary} / {secondary}
      </figcaption>
    </figure>
  );
}

function ImageUpload({
  type,
  label,
  current,
  canEdit,
}: {
  type: SiteImageType;
  label: string;
  current: string;
  canEdit: boolean;
}) {
  const inputId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const upload = useUploadSiteImage();
  const notify = useToast();
  const [error, setError] = useState<string | null>(null);

  const handleFile = (file: File | undefined) => {
    if (!file) return;
    const problem = checkSiteImageFile(file);
    setError(problem);
    if (problem) {
      notify({ title: problem, variant: 'error' });
      return;
    }
    upload.mutate(
      { type, file },
      {
        onSuccess: () =>
          notify({
            title: type === 'logo' ? SITE_UPLOAD_MESSAGES.logoUpdated : SITE_UPLOAD_MESSAGES.faviconUpdated,
            variant: 'success',
          }),
        onError: (e) => {
          setError(e.message);
          notify({
            title: `Échec de l’envoi du ${label.toLowerCase()}`,
            description: e.message,
            variant: 'error',
          });
        },
      },
    );
  };

  return (
    <div className="space-y-3">
      <p className="font-medium">{label}</p>
      <div className="flex h-24 items-center justify-center rounded-lg border border-dashed border-slate-300 bg-slate-50 p-2">
        {current ? (
          <img
            src={current}
            alt={`${label} actuel`}
            className={type === 'favicon' ? 'size-8' : 'max-h-20 max-w-full'}
          />
        ) : (
          <span className="text-sm text-slate-500">
            {type === 'logo' ? 'Aucun logo' : 'Favicon par défaut'}
          </span>
        )}
      </div>
      {canEdit ? (
        <div>
          <Button
            variant="outline"
            size="sm"
            disabled={upload.isPending}
            aria-controls={inputId}
            onClick={() => inputRef.current?.click()}
          >
            <ImageUp aria-hidden /> {upload.isPending ? 'Envoi…' : `Changer le ${label.toLowerCase()}`}
          </Button>
          <input
            ref={inputRef}
            id={inputId}
            type="file"
            accept={SITE_IMAGE_ACCEPT}
            aria-label={`Fichier du ${label.toLowerCase()}`}
            tabIndex={-1}
            className="hidden"
            onChange={(e) => {
              handleFile(e.target.files?.[0]);
              e.target.value = '';
            }}
          />
        </div>
      ) : null}
      {error ? <Alert variant="error">{error}</Alert> : null}
    </div>
  );
}
