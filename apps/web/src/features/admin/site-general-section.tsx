import { Input, Textarea } from '@/components/ui/input';
import { Field } from '@/components/ui/label';
import type { SettingsMap } from '@/lib/site-settings';
import { useSettingsForm, type SettingField } from './site-api';
import { SettingsFormCard } from './settings-form-card';

type GeneralField = SettingField & {
  multiline?: boolean;
  inputType?: 'text' | 'email' | 'url' | 'tel';
  placeholder?: string;
};

const IDENTITY: GeneralField[] = [
  { key: 'site_name', label: 'Nom du site' },
  {
    key: 'site_title',
    label: 'Titre du site',
    hint: 'Titre de l’onglet de la page d’accueil et des aperçus de liens.',
  },
  { key: 'tagline', label: 'Slogan' },
  {
    key: 'meta_description',
    label: 'Description (meta)',
    multiline: true,
    hint: 'Affichée par les moteurs de recherche.',
  },
  { key: 'meta_keywords', label: 'Mots-clés (meta)', hint: 'Séparés par des virgules.' },
  { key: 'copyright', label: 'Copyright' },
  { key: 'footer_text', label: 'Texte du pied de page' },
];
const CONTACT: GeneralField[] = [
  { key: 'contact_email', label: 'Email de contact', inputType: 'email' },
  { key: 'contact_phone', label: 'Téléphone de contact', inputType: 'tel' },
  { key: 'contact_address', label: 'Adresse postale', multiline: true },
];
const APPS: GeneralField[] = [
  {
    key: 'ios_app_url',
    label: 'Application iOS (App Store)',
    inputType: 'url',
    placeholder: 'https://apps.apple.com/…',
  },
  {
    key: 'android_app_url',
    label: 'Application Android (Google Play)',
    inputType: 'url',
    placeholder: 'https://play.google.com/…',
  },
  {
    key: 'apk_direct_url',
    label: 'APK Android en téléchargement direct',
    inputType: 'url',
    placeholder: 'https://…/securering.apk',
  },
];
export const GENERAL_FIELDS: GeneralField[] = [...IDENTITY, ...CONTACT, ...APPS];

/** "Général": site identity, contact details and app links (category general). */
export function SiteGeneralSection({ initial, canEdit }: { initial: SettingsMap; canEdit: boolean }) {
  const form = useSettingsForm('general', GENERAL_FIELDS, initial);

  const renderField = (field: GeneralField) => {
    const id = `site-${field.key}`;
    const error = form.errors[field.key];
    const common = {
      id,
      value: form.values[field.key] ?? '',
      disabled: !canEdit || form.saving,
      'aria-invalid': error ? true : undefined,
      'aria-describedby': error ? `${id}-error` : undefined,
    };
    return (
      <Field key={field.key} id={id} label={field.label} error={error} hint={field.hint}>
        {field.multiline ? (
          <Textarea {...common} rows={3} onChange={(e) => form.set(field.key, e.target.value)} />
        ) : (
          <Input
            {...common}
            type={field.inputType ?? 'text'}
            placeholder={field.placeholder}
            onChange={(e) => form.set(field.key, e.target.value)}
          />
        )}
      </Field>
    );
  };

  return (
    <SettingsFormCard
      title="Paramètres généraux"
      description="Identité du site, coordonnées et liens vers les applications mobiles."
      canEdit={canEdit}
      saving={form.saving}
      onSave={form.submit}
      contentClassName="space-y-6"
    >
      <fieldset className="grid gap-4 md:grid-cols-2">
        <legend className="mb-2 font-semibold">Identité</legend>
        {IDENTITY.map(renderField)}
      </fieldset>
      <fieldset className="grid gap-4 md:grid-cols-2">
        <legend className="mb-2 font-semibold">Contact</legend>
        {CONTACT.map(renderField)}
      </fieldset>
      <fieldset className="grid gap-4 md:grid-cols-2">
        <legend className="mb-2 font-semibold">Applications mobiles</legend>
        {APPS.map(renderField)}
      </fieldset>
    </SettingsFormCard>
  );
}
