import { z } from 'zod';
import { successOf } from '../common';

/**
 * Backups (spec 3 §2.9, §7 /api/admin/backup.php): a zip of a logical export of every table plus
 * the uploaded and Ring files, listed, downloaded, uploaded, restored and deleted by file name.
 */

/** The only file names the server accepts in a request and keeps on disk. */
export const BACKUP_FILENAME_PATTERN = /^[A-Za-z0-9._-]+\.zip$/;
export const BACKUP_FILENAME_MAX_LENGTH = 200;
/** Largest archive accepted by the upload (2 GiB). */
export const BACKUP_MAX_UPLOAD_BYTES = 2 * 1024 ** 3;

/** Restore reload delays (spec 3 §4 and §9): 3 s after an answer, 4 s when the request was cut at 1.2 s. */
export const BACKUP_RESTORE_RELOAD_MS = 3000;
export const BACKUP_RESTORE_ABORTED_RELOAD_MS = 4000;
export const BACKUP_RESTORE_ABORT_MS = 1200;

export const BACKUP_MESSAGES = {
  description:
    'Une sauvegarde contient la base de données et les fichiers envoyés (fichiers des Rings, logo, favicon).',
  created: 'Sauvegarde créée',
  uploaded: 'Sauvegarde envoyée',
  restored: 'Sauvegarde restaurée',
  deleted: 'Sauvegarde supprimée',
  invalidFilename: 'Nom de fichier invalide',
  notFound: 'Sauvegarde introuvable',
  zipOnly: 'Seuls les .zip sont autorisés',
  fileRequired: 'Fichier de sauvegarde requis',
  tooLarge: 'Sauvegarde trop volumineuse (2 Go maximum)',
  notSecureRing: 'Archive invalide\u202f: ce n’est pas une sauvegarde SecureRing',
  unsafePath: 'Archive refusée\u202f: chemin non autorisé',
  unreadableData: 'Archive invalide\u202f: données de sauvegarde illisibles',
  newerVersion: 'Sauvegarde d’une version plus récente\u202f: restauration impossible',
  inconsistent:
    'Restauration impossible\u202f: les données de la sauvegarde sont incohérentes. Rien n’a été modifié.',
  restoreFailed: 'La restauration a échoué. Rien n’a été modifié.',
  filesNotSwapped: 'Base de données restaurée, mais les fichiers n’ont pas pu être remplacés',
  busy: 'Une opération de sauvegarde est déjà en cours',
  superAdminOnly: 'Réservé au super administrateur',
  tooManyEntries: 'Archive refusée\u202f: trop de fichiers',
  tooLargeUncompressed: 'Archive refusée\u202f: contenu décompressé trop volumineux (64 Go maximum)',
  notEnoughSpace: 'Espace disque insuffisant pour restaurer cette sauvegarde',
  /** After a restore every session has ended, the restoring admin's included. */
  restoredSignInAgain: 'Restauration terminée\u202f: reconnectez-vous',
  unknownAction: 'Action inconnue',
  // Web messages (spec 3 §8).
  createFailed: 'Impossible de créer la sauvegarde.',
  downloadFailed: 'Impossible de télécharger la sauvegarde.',
  deleteFailed: 'Impossible de supprimer la sauvegarde.',
  uploadFailed: 'Upload échoué',
  loadFailed: 'Impossible de charger les données.',
  networkError: 'Erreur réseau',
} as const;

/**
 * The restore's answer when secret settings could not come back (the backup was made without
 * BACKUP_ENCRYPTION_KEY, or with another one): their current values were kept.
 */
export function backupSecretsNotRestoredMessage(labels: readonly string[]): string {
  return `Sauvegarde restaurée. Secrets non restaurés (clé BACKUP_ENCRYPTION_KEY absente ou différente) : ${labels.join(', ')}. Les valeurs actuelles sont conservées : saisissez-les de nouveau si elles ne conviennent pas.`;
}

/** True when a name is one the server would accept (charset, length, .zip). */
export function isBackupFilename(name: string): boolean {
  return (
    name.length <= BACKUP_FILENAME_MAX_LENGTH && BACKUP_FILENAME_PATTERN.test(name) && !name.startsWith('.')
  );
}

/** The upload check of spec 3 §5: the file name must end in .zip. */
export function hasZipExtension(name: string): boolean {
  return /\.zip$/i.test(name.trim());
}

export const ZBackupFilename = z
  .string({ message: BACKUP_MESSAGES.invalidFilename })
  .refine(isBackupFilename, BACKUP_MESSAGES.invalidFilename);

export const ZBackupInfo = z.object({
  filename: z.string(),
  /** ISO-8601 UTC. */
  date: z.string(),
  /** Bytes. */
  size: z.number().int().nonnegative(),
});
export type TBackupInfo = z.infer<typeof ZBackupInfo>;

/** GET ?action=list | download&filename= */
export const ZBackupGetQuery = z.object({
  action: z.enum(['list', 'download'], { message: BACKUP_MESSAGES.unknownAction }),
  filename: z.string().optional(),
});

/** POST JSON {action: create} | {action: restore, filename}; the upload is multipart. */
export const ZBackupPostRequest = z.discriminatedUnion(
  'action',
  [
    z.object({ action: z.literal('create') }),
    z.object({ action: z.literal('restore'), filename: ZBackupFilename }),
  ],
  { message: BACKUP_MESSAGES.unknownAction },
);
export type TBackupPostRequest = z.input<typeof ZBackupPostRequest>;

/** DELETE ?filename= */
export const ZBackupDeleteQuery = z.object({ filename: ZBackupFilename });

export const ZBackupListResponse = successOf({ backups: z.array(ZBackupInfo) });
export type TBackupListResponse = z.infer<typeof ZBackupListResponse>;
export const ZBackupCreateResponse = successOf({ backup: ZBackupInfo, message: z.string() });
export const ZBackupUploadResponse = ZBackupCreateResponse;
export const ZBackupMessageResponse = successOf({ message: z.string() });

/** A secret setting the restore could not bring back. */
export const ZBackupSettingToReenter = z.object({ category: z.string(), key: z.string(), label: z.string() });
export type TBackupSettingToReenter = z.infer<typeof ZBackupSettingToReenter>;

/** POST {action: restore}: every session has ended; secrets to enter again, if any. */
export const ZBackupRestoreResponse = successOf({
  message: z.string(),
  settings_to_reenter: z.array(ZBackupSettingToReenter),
});
export type TBackupRestoreResponse = z.infer<typeof ZBackupRestoreResponse>;
