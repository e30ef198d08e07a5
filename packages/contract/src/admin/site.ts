import { z } from 'zod';
import { successOf } from '../common';

/** What an uploaded site image is for; each has its own `general` setting. */
export const SITE_IMAGE_TYPES = ['logo', 'favicon'] as const;
export type SiteImageType = (typeof SITE_IMAGE_TYPES)[number];

/** Upload limit for the logo and the favicon (spec 3 §9). */
export const SITE_IMAGE_MAX_BYTES = 5 * 1024 * 1024;

export const SITE_UPLOAD_MESSAGES = {
  invalidImage: 'Veuillez sélectionner un fichier image valide.',
  tooLarge: 'Le fichier est trop volumineux. Taille maximale\u202f: 5MB.',
  invalidType: 'Type d’image invalide (logo ou favicon attendu)',
  logoUpdated: 'Logo mis à jour',
  faviconUpdated: 'Favicon mis à jour',
} as const;

/** The public pages the legal editor previews, by setting key. */
export const LEGAL_PAGES = [
  { key: 'terms_content', label: 'Conditions générales', path: '/terms' },
  { key: 'privacy_content', label: 'Politique de confidentialité', path: '/privacy' },
  { key: 'legal_content', label: 'Mentions légales', path: '/legal' },
] as const;

/** What the file picker offers; the server accepts exactly these formats, judged by content. */
export const SITE_IMAGE_ACCEPT =
  'image/png,image/jpeg,image/gif,image/webp,image/x-icon,image/vnd.microsoft.icon,.ico';

/**
 * The browser's first check of a picked file (the server checks the content again): an image other
 * than SVG, at most 5 MB. Some systems give .ico files no type, so the name decides then.
 * Returns the French error, or null when the file may be sent.
 */
export function checkSiteImageFile(file: { type: string; size: number; name?: string }): string | null {
  const type = file.type.toLowerCase();
  const knownByName = type === '' && /\.(png|jpe?g|gif|webp|ico)$/i.test(file.name ?? '');
  if (!knownByName && (!type.startsWith('image/') || type.startsWith('image/svg')))
    return SITE_UPLOAD_MESSAGES.invalidImage;
  if (file.size > SITE_IMAGE_MAX_BYTES) return SITE_UPLOAD_MESSAGES.tooLarge;
  if (file.size === 0) return SITE_UPLOAD_MESSAGES.invalidImage;
  return null;
}

/** POST /api/admin/upload.php, multipart `{ file, type }` → the public path of the stored image. */
export const ZSiteImageUploadResponse = successOf({ url: z.string(), message: z.string().optional() });
export type TSiteImageUploadResponse = z.infer<typeof ZSiteImageUploadResponse>;
