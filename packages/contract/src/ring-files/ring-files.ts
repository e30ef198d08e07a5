import { z } from 'zod';
import { successOf, zBoundedString } from '../common';

/**
 * The Ring file space (spec 2 §2 Files tab, §3 File, §5 file and folder rules, §7 `rings/files/*`,
 * §8 messages; issue 12). Contents are encrypted in the browser (SRF1 STREAM format of
 * packages/e2ee); names travel in signed, encrypted metadata blobs (`meta`, issue 27) and path
 * segments are opaque lookup tags (older ones AES-GCM-SIV names): the server stores, lists and
 * moves opaque bytes and opaque names, and checks sizes, quota and rights.
 */

/** The calls of the file space (all Ring-member authenticated, bearer header). */
export const RING_FILES_API_PATHS = {
  list: '/api/rings/files/list.php',
  upload: '/api/rings/files/upload.php',
  download: '/api/rings/files/download.php',
  rename: '/api/rings/files/rename.php',
  delete: '/api/rings/files/delete.php',
  mkdir: '/api/rings/files/mkdir.php',
  renameFolder: '/api/rings/files/rename-folder.php',
  rmdir: '/api/rings/files/rmdir.php',
  /** Moves a file into another folder with its metadata signed again (issue 28 « Déplacer »). */
  move: '/api/rings/files/move.php',
  /** Every folder of the Ring (the « Déplacer » dialog lists the destinations). */
  folders: '/api/rings/files/folders.php',
  /**
   * Existing files' keys given to a newcomer (« Donner accès aux fichiers existants », issue 24):
   * GET lists every file's wrapped keys, POST adds wraps under a later epoch key.
   */
  keys: '/api/rings/files/keys.php',
  /** Resumable uploads (tus 1.0.0): POST here creates an upload, `<tus>/<id>` takes HEAD/PATCH/DELETE. */
  tus: '/api/rings/files/tus',
} as const;

export const RING_FILES_MESSAGES = {
  // Spec 2 §8, shown by the web app when the server sends no message of its own.
  uploadError: 'Erreur upload',
  uploaded: (count: number) => `${count} fichier(s) uploadé(s)`,
  downloadError: 'Téléchargement impossible',
  connectionError: 'Erreur de connexion',
  renameFailed: 'Échec renommage',
  renamed: 'Nom mis à jour',
  deleteFailed: 'Échec suppression',
  deleted: 'Supprimé',
  folderTitle: 'Dossier',
  mkdirFailed: 'mkdir échoué',
  folderRenameFailed: 'Renommage échoué',
  folderDeleteFailed: 'Suppression échouée',
  confirmDelete: 'Supprimer ce fichier\u202f?',
  empty: 'Aucun fichier',
  dropZone: 'Glissez-déposez vos fichiers ici',
  // Server answers.
  folderNotEmpty: 'Le dossier doit être vide pour être supprimé',
  fileSharingNotInPlan:
    'Le partage de fichiers n’est pas inclus dans le plan de ce Ring\u202f: il est disponible avec les offres Professional et Enterprise.',
  fileNotFound: 'Fichier introuvable',
  folderNotFound: 'Dossier introuvable',
  folderExists: 'Un dossier de ce nom existe déjà ici',
  parentNotFound: 'Le dossier parent n’existe pas',
  destinationGone: 'Le dossier de destination n’existe plus',
  invalidName: 'Nom de fichier ou de dossier invalide',
  invalidFolder: 'Chemin de dossier invalide',
  folderIntoItself: 'Un dossier ne peut pas être déplacé dans lui-même',
  fileMissing: 'Aucun fichier reçu',
  fileTooLarge: (maxMb: number) => `Fichier trop volumineux\u202f: ${maxMb} Mo maximum dans ce Ring`,
  quotaExceeded: 'Espace de stockage insuffisant\u202f: ce fichier dépasse l’espace restant du Ring',
  notEncrypted: 'Le fichier doit être chiffré dans le navigateur avant l’envoi',
  sizeMismatch: 'La taille reçue ne correspond pas à la taille annoncée',
  uploadInterrupted: 'Envoi interrompu\u202f: le fichier n’a pas été enregistré',
  deferredLength: 'La taille du fichier doit être annoncée dès le début de l’envoi',
  fileKeyMissing: 'Clé de fichier manquante',
  invalidFileKey: 'Clé de fichier invalide',
  invalidFileId: 'Identifiant de fichier invalide',
  fileIdTaken: 'Identifiant de fichier déjà utilisé',
  ownFilesOnly: 'Vous ne pouvez renommer ou supprimer que vos propres fichiers',
  ownFoldersOnly:
    'Seuls le propriétaire, les administrateurs du Ring et la personne qui a créé ce dossier peuvent le modifier',
  rangeNotSatisfiable: 'Plage d’octets invalide',
  unchanged: 'Aucun changement',
  folderCreated: 'Dossier créé',
  folderRenamed: 'Dossier renommé',
  folderDeleted: 'Dossier supprimé',
  keysAdminsOnly: 'Seuls le propriétaire et les administrateurs du Ring donnent accès aux fichiers existants',
  keysEpochNotHeld: 'Clé du Ring inconnue pour ce partage de fichiers',
  tooManyKeys: (max: number) => `${max} clés de fichier au plus par envoi`,
  invalidMeta: 'Métadonnées chiffrées invalides',
  // « Déplacer » (issue 28).
  moved: 'Fichier déplacé',
  moveFailed: 'Déplacement échoué',
  moveTitle: 'Déplacer le fichier',
  ownFilesMoveOnly:
    'Seuls le propriétaire, les administrateurs du Ring et la personne qui a envoyé ce fichier peuvent le déplacer',
  moveNeedsMeta: 'Ce fichier n’a pas encore de métadonnées signées\u202f: rouvrez son dossier puis réessayez',
  staleMetaVersion:
    'Ce fichier a été modifié entre-temps par un autre membre\u202f: la liste a été rechargée, réessayez',
  invalidMetaVersion: 'Version de métadonnées invalide',
} as const;

// ---------------------------------------------------------------------------------------------
// Encrypted names and paths
// ---------------------------------------------------------------------------------------------

/**
 * An encrypted name is unpadded base64url of 1 to 1020 UTF-8 bytes plus a 16-byte tag
 * (packages/e2ee names.ts): 23 to 1382 characters, never "/", ".", "..".
 */
export const ENCRYPTED_NAME = { minLength: 23, maxLength: 1382 } as const;
/**
 * Longest folder path (characters) and depth. PostgreSQL indexes (ring_id, path), and a B-tree
 * entry must stay well under its 2.7 KB limit.
 */
export const FOLDER_PATH = { maxLength: 2048, maxDepth: 32 } as const;

const NAME_CHARS = /^[A-Za-z0-9_-]+$/;

/** True for one encrypted name segment (base64url of a possible AES-GCM-SIV output). */
export function isEncryptedName(value: string): boolean {
  return (
    value.length >= ENCRYPTED_NAME.minLength &&
    value.length <= ENCRYPTED_NAME.maxLength &&
    value.length % 4 !== 1 &&
    NAME_CHARS.test(value)
  );
}

/** True for a folder path: "" (the root) or encrypted segments joined by "/". */
export function isFolderPath(value: string): boolean {
  if (value === '') return true;
  if (value.length > FOLDER_PATH.maxLength) return false;
  const segments = value.split('/');
  return segments.length <= FOLDER_PATH.maxDepth && segments.every(isEncryptedName);
}

/**
 * Longest sealed metadata blob (packages/e2ee file-meta.ts):
 * "m2.<epoch>.<logSeq>.<logHash>.<signer>.<nonce‖ciphertext>.<signature>", the epoch whose key
 * sealed it (folders) or the signer held (files), the membership-log position it was signed at,
 * base64url parts, the plaintext padded to at most 2048 bytes.
 */
export const SEALED_META_MAX_LENGTH = 3200;
const SEALED_META =
  /^m2\.(0|[1-9][0-9]{0,9})\.(0|[1-9][0-9]{0,9})\.[0-9a-f]{64}\.[A-Za-z0-9_-]{1,128}\.[A-Za-z0-9_-]{40,2800}\.[A-Za-z0-9_-]{86}$/;

/** True for the wire shape of a sealed file or folder metadata blob (the server holds no key). */
export function isSealedMeta(value: string): boolean {
  return value.length <= SEALED_META_MAX_LENGTH && SEALED_META.test(value);
}

/** The epoch a sealed blob names in clear (what the server compares), or undefined if malformed. */
export function sealedMetaEpoch(value: string): number | undefined {
  return isSealedMeta(value) ? Number(value.split('.')[1]) : undefined;
}

const zSealedMeta = zBoundedString(SEALED_META_MAX_LENGTH, RING_FILES_MESSAGES.invalidMeta).refine(
  isSealedMeta,
  RING_FILES_MESSAGES.invalidMeta,
);

const zEncryptedName = zBoundedString(ENCRYPTED_NAME.maxLength, RING_FILES_MESSAGES.invalidName).refine(
  isEncryptedName,
  RING_FILES_MESSAGES.invalidName,
);
const zFolderPath = zBoundedString(FOLDER_PATH.maxLength, RING_FILES_MESSAGES.invalidFolder).refine(
  isFolderPath,
  RING_FILES_MESSAGES.invalidFolder,
);
const zNonRootFolder = zFolderPath.refine((v) => v !== '', RING_FILES_MESSAGES.invalidFolder);
/** A rename target: blank means "ignore" (spec 2 §5); anything else must pass `valid`. */
const blankable = (valid: (value: string) => boolean, message: string) =>
  z
    .string()
    .max(FOLDER_PATH.maxLength, { message, abort: true })
    .transform((v) => v.trim())
    .refine((v) => v === '' || valid(v), message);

// ---------------------------------------------------------------------------------------------
// File ids and wrapped keys
// ---------------------------------------------------------------------------------------------

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A file id as stored and asked for: a lower-case UUID. */
export const isFileId = (value: string): boolean => UUID.test(value);
/**
 * A file id the browser proposes at upload (it binds the wrapped file key to it before sending):
 * a random UUID (version 4, `crypto.randomUUID()`).
 */
export const isNewFileId = (value: string): boolean => UUID_V4.test(value);

const zFileId = zBoundedString(64, RING_FILES_MESSAGES.fileNotFound).refine(
  isFileId,
  RING_FILES_MESSAGES.fileNotFound,
);

/** A file key wrapped under a Ring epoch key (packages/e2ee `wrapFileKey`), as JSON. */
export const ZWrappedFileKey = z.strictObject({
  v: z.literal(1),
  epoch: z.number().int().min(1).max(0xffff_ffff),
  iv: z.string().regex(/^[A-Za-z0-9+/]{16}$/),
  ct: z.string().regex(/^[A-Za-z0-9+/]{64}$/),
});
export type TWrappedFileKey = z.infer<typeof ZWrappedFileKey>;

/** Reads a wrapped key sent as JSON text (multipart field, tus metadata); undefined if malformed. */
export function parseWrappedFileKey(text: string): TWrappedFileKey | undefined {
  if (text.length > 512) return undefined;
  try {
    const parsed = ZWrappedFileKey.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Encrypted sizes (SRF1: 12-byte header, then 64 KiB chunks each sealed with a 16-byte tag)
// ---------------------------------------------------------------------------------------------

export const ENCRYPTED_FILE_FORMAT = {
  chunkBytes: 65_536,
  headerBytes: 12,
  tagBytes: 16,
  /** "SRF1" then the version byte 1: every encrypted file starts with these. */
  magic: [0x53, 0x52, 0x46, 0x31, 0x01],
} as const;

/** Stored (ciphertext) size of a file of `plainBytes` bytes. */
export function encryptedFileSize(plainBytes: number): number {
  const { chunkBytes, headerBytes, tagBytes } = ENCRYPTED_FILE_FORMAT;
  const chunks = Math.max(1, Math.ceil(plainBytes / chunkBytes));
  return headerBytes + plainBytes + chunks * tagBytes;
}

/** Plain size of a stored file of `cipherBytes`, or undefined when no SRF1 file has that size. */
export function plainFileSize(cipherBytes: number): number | undefined {
  const { chunkBytes, headerBytes, tagBytes } = ENCRYPTED_FILE_FORMAT;
  const body = cipherBytes - headerBytes;
  if (!Number.isSafeInteger(cipherBytes) || body < tagBytes) return undefined;
  const chunks = Math.ceil(body / (chunkBytes + tagBytes));
  const last = body - (chunks - 1) * (chunkBytes + tagBytes);
  if (last < tagBytes || (chunks > 1 && last === tagBytes)) return undefined;
  return body - chunks * tagBytes;
}

const MIB = 1024 * 1024;

/**
 * The largest stored file a Ring accepts: the encrypted size of `max_file_size` MiB ("Mo", base
 * 1024), so a file of exactly the limit fits once encrypted. The browser checks the plain size.
 */
export const maxEncryptedFileBytes = (maxFileSizeMb: number): number =>
  encryptedFileSize(maxFileSizeMb * MIB);

// ---------------------------------------------------------------------------------------------
// Views and calls
// ---------------------------------------------------------------------------------------------

/** A file as list.php and upload.php answer it (spec 2 §3 File, plus what decryption needs). */
export const ZRingFile = z.object({
  id: z.string(),
  /** Encrypted name segment. */
  name: z.string(),
  /** Encrypted extension segment, or "" (the real extension is never sent in clear). */
  extension: z.string(),
  /** Encrypted original name. */
  original_name: z.string(),
  /** Stored (ciphertext) bytes; the plain size is `plainFileSize(size_bytes)`. */
  size_bytes: z.number().int().nonnegative(),
  uploaded_at: z.string(),
  updated_at: z.string(),
  /** The folder path the file is in ("" for the root). */
  folder: z.string(),
  file_key: ZWrappedFileKey.nullable(),
  key_epoch: z.number().int().nullable(),
  /**
   * The same file key wrapped again under later epoch keys (existing files given to a member
   * admitted later); by epoch.
   */
  key_wraps: z.array(ZWrappedFileKey),
  /** Member id of the uploader (null once that member is deleted). */
  uploaded_by: z.string().nullable(),
  /** Whether the caller may rename and delete it. */
  can_manage: z.boolean(),
  /**
   * Sealed metadata (name, type, folder id, uploader; encrypted under the file key and signed,
   * issue 27); null for a file from before it, until a member migrates it. When set, `name`,
   * `original_name` and `extension` are opaque and mean nothing.
   */
  meta: z.string().nullable(),
});
export type TRingFile = z.infer<typeof ZRingFile>;

export const ZRingStorage = z.object({
  allocated: z.number(),
  used: z.number(),
  remaining: z.number(),
});

/** A subfolder as list.php answers it. */
export const ZRingFolder = z.object({
  /** The folder's id (its sealed metadata is bound to it; files' metadata names it). */
  id: z.string(),
  /** Full path of the folder (encrypted segments or lookup tags joined by "/"). */
  path: z.string(),
  /** Its last segment (encrypted). */
  name: z.string(),
  created_at: z.string(),
  can_manage: z.boolean(),
  /** Sealed name and parent id (issue 27); null for a folder from before it, until migrated. */
  meta: z.string().nullable(),
  /**
   * Holds no file and no subfolder (only told for the listed folder's subfolders; absent in the
   * trail): « Supprimer » is offered only then (issue 28).
   */
  empty: z.boolean().optional(),
});
export type TRingFolder = z.infer<typeof ZRingFolder>;

/** GET list.php?folder= — the files and direct subfolders of a folder ("" = root). */
export const ZListFilesQuery = z.object({ folder: zFolderPath.default('') });
export const ZListFilesResponse = successOf({
  files: z.array(ZRingFile),
  folders: z.array(ZRingFolder),
  folder: z.string(),
  /**
   * The folders from the root down to `folder` (empty at the root): the browser checks their
   * sealed parents chain up and shows their names in the breadcrumb.
   */
  trail: z.array(ZRingFolder),
  storage: ZRingStorage,
  /** The Ring's limit in Mo (MiB) of plain content, and the stored bytes it allows. */
  max_file_size_mb: z.number().int(),
  max_file_bytes: z.number().int(),
});
export type TListFilesResponse = z.infer<typeof ZListFilesResponse>;

/**
 * POST upload.php (multipart) and tus metadata: the fields that describe the file. Send them
 * before the `file` part so a refusal comes before any byte is read. `size` is the encrypted size
 * (optional: it lets the server refuse an oversized file before reading it).
 */
export const ZUploadFields = z.object({
  folder: zFolderPath.default(''),
  name: zEncryptedName,
  original_name: zEncryptedName.optional(),
  extension: z
    .string()
    .max(ENCRYPTED_NAME.maxLength, { message: RING_FILES_MESSAGES.invalidName, abort: true })
    .refine((v) => v === '' || isEncryptedName(v), RING_FILES_MESSAGES.invalidName)
    .default(''),
  file_id: zBoundedString(64, RING_FILES_MESSAGES.invalidFileId)
    .refine(isNewFileId, RING_FILES_MESSAGES.invalidFileId)
    .optional(),
  meta: zSealedMeta.optional(),
  file_key: z
    .string({ message: RING_FILES_MESSAGES.fileKeyMissing })
    .max(512, { message: RING_FILES_MESSAGES.invalidFileKey, abort: true })
    .transform((v, ctx) => {
      const key = parseWrappedFileKey(v);
      if (!key) ctx.addIssue({ code: 'custom', message: RING_FILES_MESSAGES.invalidFileKey });
      return key as TWrappedFileKey;
    }),
});
export type TUploadFields = z.input<typeof ZUploadFields>;
export const UPLOAD_FIELD_NAMES = [
  'folder',
  'name',
  'original_name',
  'extension',
  'file_id',
  'file_key',
  'meta',
  'size',
] as const;
export const ZUploadFileResponse = successOf({ file: ZRingFile, message: z.string() });
export type TUploadFileResponse = z.infer<typeof ZUploadFileResponse>;

/** GET download.php?id= — the stored bytes (Range supported), metadata in headers. */
export const ZDownloadQuery = z.object({ id: zFileId });
/** Response headers of download.php besides Content-Length/Range: the wrapped key as JSON. */
export const DOWNLOAD_HEADERS = { fileKey: 'X-File-Key', keyEpoch: 'X-File-Key-Epoch' } as const;

/** POST rename.php — a blank or unchanged `new_name` changes nothing (spec 2 §5). */
export const ZRenameFileRequest = z.object({
  id: zFileId,
  new_name: blankable(isEncryptedName, RING_FILES_MESSAGES.invalidName),
  /** Encrypted display name; defaults to `new_name`. */
  original_name: zEncryptedName.optional(),
  /** Encrypted extension or "". */
  extension: z
    .string()
    .max(ENCRYPTED_NAME.maxLength, { message: RING_FILES_MESSAGES.invalidName, abort: true })
    .refine((v) => v === '' || isEncryptedName(v), RING_FILES_MESSAGES.invalidName)
    .optional(),
  /**
   * The file's new sealed metadata. Any member may send it for a file that has none yet (the
   * migration of an older file, signed by that member); otherwise only those who manage the file.
   */
  meta: zSealedMeta.optional(),
});
export type TRenameFileRequest = z.input<typeof ZRenameFileRequest>;
export const ZRenameFileResponse = successOf({
  changed: z.boolean(),
  file: ZRingFile,
  message: z.string(),
});

/**
 * POST move.php — moves a file into `folder` ("" = the root) with its metadata sealed again (the
 * new folder id, the next version) and signed by the mover: the uploader, the owner or a Ring
 * admin. `meta_version` is the version the mover signed, in clear: the server cannot read the
 * sealed one, and accepts only a claim above the last move's (a concurrent move is refused);
 * readers check the signed version and folder themselves.
 */
export const ZMoveFileRequest = z.object({
  id: zFileId,
  folder: zFolderPath,
  meta: zSealedMeta,
  meta_version: z
    .number({ message: RING_FILES_MESSAGES.invalidMetaVersion })
    .int(RING_FILES_MESSAGES.invalidMetaVersion)
    .min(2, RING_FILES_MESSAGES.invalidMetaVersion)
    .max(0x7fff_ffff, RING_FILES_MESSAGES.invalidMetaVersion),
});
export type TMoveFileRequest = z.input<typeof ZMoveFileRequest>;
export const ZMoveFileResponse = successOf({
  changed: z.boolean(),
  file: ZRingFile,
  message: z.string(),
});
export type TMoveFileResponse = z.infer<typeof ZMoveFileResponse>;

/** GET folders.php — every folder of the Ring (paths, ids, sealed metadata), for « Déplacer ». */
export const ZListFoldersResponse = successOf({ folders: z.array(ZRingFolder) });
export type TListFoldersResponse = z.infer<typeof ZListFoldersResponse>;

/** POST delete.php */
export const ZDeleteFileRequest = z.object({ id: zFileId });
export type TDeleteFileRequest = z.input<typeof ZDeleteFileRequest>;
export const ZDeleteFileResponse = successOf({ message: z.string() });

/** POST mkdir.php — `parent` "" is the root. */
export const ZMkdirRequest = z.object({
  parent: zFolderPath.default(''),
  /** A lookup tag (or, from older browsers, an encrypted name): unique under `parent`. */
  name: zEncryptedName,
  /** The id the browser bound the folder's metadata to (a random UUID), else one is drawn. */
  id: zBoundedString(64, RING_FILES_MESSAGES.invalidFolder)
    .refine(isNewFileId, RING_FILES_MESSAGES.invalidFolder)
    .optional(),
  meta: zSealedMeta.optional(),
});
export type TMkdirRequest = z.input<typeof ZMkdirRequest>;
export const ZMkdirResponse = successOf({ folder: z.string(), message: z.string() });

/**
 * POST rename-folder.php — moves the folder, its subfolders and their files to `new_path` (whose
 * parent must exist). A blank or unchanged `new_path` changes nothing (spec 2 §5).
 */
export const ZRenameFolderRequest = z.object({
  old_path: zNonRootFolder,
  new_path: blankable(isFolderPath, RING_FILES_MESSAGES.invalidFolder),
  /**
   * The folder's new sealed metadata (name, parent). Any member may send it for a folder that has
   * none yet, or whose metadata is sealed under an older epoch than this one (migration, which may
   * replace the folder's segment by its tag in the new epoch, never move it); a rename without it
   * leaves the folder without metadata.
   */
  meta: zSealedMeta.optional(),
});
export type TRenameFolderRequest = z.input<typeof ZRenameFolderRequest>;
export const ZRenameFolderResponse = successOf({
  changed: z.boolean(),
  folder: z.string(),
  message: z.string(),
});

/** POST rmdir.php — only an empty folder (no file, no subfolder) is deleted. */
export const ZRmdirRequest = z.object({ folder: zNonRootFolder });
export type TRmdirRequest = z.input<typeof ZRmdirRequest>;
export const ZRmdirResponse = successOf({ message: z.string() });

/** Most wraps one POST keys.php carries, and most files one GET keys.php page lists. */
export const FILE_KEYS_BATCH = { maxWraps: 500, pageSize: 1000 } as const;

/** GET keys.php?after= — the Ring's files by id, after `after`, with every wrap of their key. */
export const ZFileKeysQuery = z.object({
  after: z.string().max(64, RING_FILES_MESSAGES.invalidFileId).default(''),
});
export const ZFileKeysResponse = successOf({
  files: z.array(
    z.object({ id: z.string(), file_key: ZWrappedFileKey.nullable(), key_wraps: z.array(ZWrappedFileKey) }),
  ),
  /** The `after` of the next page, or null on the last one. */
  next: z.string().nullable(),
});
export type TFileKeysResponse = z.infer<typeof ZFileKeysResponse>;

/** POST keys.php — file keys wrapped again under an epoch key the caller holds (first wrap per epoch kept). */
export const ZAddFileKeysRequest = z.object({
  wraps: z
    .array(
      z.object({
        file_id: zFileId,
        file_key: z.custom<TWrappedFileKey>((v) => ZWrappedFileKey.safeParse(v).success, {
          message: RING_FILES_MESSAGES.invalidFileKey,
        }),
      }),
      { message: RING_FILES_MESSAGES.invalidFileKey },
    )
    .min(1, RING_FILES_MESSAGES.invalidFileKey)
    .max(FILE_KEYS_BATCH.maxWraps, RING_FILES_MESSAGES.tooManyKeys(FILE_KEYS_BATCH.maxWraps)),
});
export type TAddFileKeysRequest = z.input<typeof ZAddFileKeysRequest>;
export const ZAddFileKeysResponse = successOf({ stored: z.number().int() });

/**
 * tus (1.0.0, extensions creation, creation-with-upload, termination): `Upload-Length` (the
 * encrypted size) is required; `Upload-Metadata` carries the ZUploadFields keys (values base64 as
 * tus requires). The upload id in the Location header is random and serves only its uploader.
 */
export const TUS_METADATA_KEYS = [
  'folder',
  'name',
  'original_name',
  'extension',
  'file_id',
  'file_key',
  'meta',
] as const;
