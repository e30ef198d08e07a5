import type { TListFilesResponse, TRingFile, TRingFolder } from '@securering/contract';
import {
  type ContentBinding,
  type EpochKey,
  type MetaPin,
  type SignerKeys,
  deriveNameTagKey,
  isE2eeError,
  nameTag,
  opaqueName,
  openFileMeta,
  openFolderMeta,
  sealFileMeta,
  sealFolderMeta,
} from '@securering/e2ee';
import { openFileKey, readFileName, readName } from './files-crypto';
import { joinPath, parentOf } from './files-policy';

/**
 * What the browser trusts about a folder page (issue 27, review M3). Names, types, folders and
 * uploaders come from sealed metadata signed by a member (packages/e2ee file-meta.ts), never from
 * what the server says: a file whose metadata names another folder than the one listed (the
 * server moved it), a folder whose parent is not the folder listed, or a blob that does not open
 * for its own id (the server swapped names) is flagged, and its name is not shown as trusted.
 * Items from before the metadata ("legacy") are read the old way and migrated (`migratePage`), and
 * so are folders sealed under an epoch older than the current one (folder names rotate with epochs).
 * Each blob's signer must be a member at the log position it names (`RingKeys.metaSignerKeys`); a
 * blob older than one this browser already saw for the same item (a version the server replays)
 * is flagged « Version périmée » (`SeenVersions`).
 */

/** `no_key`: this member holds no key to read it yet (nothing is wrong with it). */
export type MetaStatus =
  | 'verified'
  | 'legacy'
  | 'misplaced'
  | 'unverifiable'
  | 'no_key'
  /** An older version than one this browser already saw for this item (replayed by the server). */
  | 'replayed'
  /** A file whose listed size is not the one its signed metadata names. */
  | 'altered';

export interface ReadItem {
  /** The name to show, when one could be read (verified, legacy or misplaced). */
  name: string | undefined;
  status: MetaStatus;
  /** The signed uploader (files with metadata). */
  uploader?: string;
  /** The signed media type (files with metadata). */
  type?: string;
  /** The file's key when this browser opened it (to seal a rename or a migration). */
  fileKey?: Uint8Array;
  /** The signed version (items with metadata): a rename or migration signs the next one. */
  version?: number;
  /** Folders: the epoch whose key sealed the metadata (older than the current: re-sealed). */
  epoch?: number;
  /** Files: the content the signed metadata names (null: migrated without one). */
  content?: ContentBinding | null;
}

export interface ReadPage {
  /** Id of the folder listed ("" for the root), as its signed trail says. */
  folderId: string;
  /** The trail's folders, root first, with what this browser could verify of each. */
  trail: ReadItem[];
  folders: Map<string, ReadItem>;
  files: Map<string, ReadItem>;
}

export interface MetaContext {
  ringId: string;
  namesKey: Uint8Array | undefined;
  epochKey(epoch: number): EpochKey | undefined;
  /** The keys the verified membership log gives a blob's signer at its pin (RingKeys.metaSignerKeys). */
  signerKeys: SignerKeys;
  /** The highest version this browser saw of each item. */
  versions: SeenVersions;
}

/**
 * The highest signed version this browser has seen of each file and folder of a Ring, kept in
 * local storage (ids and numbers only): a lower one shown later is a replay by the server.
 */
export class SeenVersions {
  private readonly seen: Map<string, number>;

  constructor(
    private readonly storage?: Pick<Storage, 'getItem' | 'setItem'>,
    private readonly key = '',
  ) {
    this.seen = new Map();
    try {
      const saved: unknown = JSON.parse(storage?.getItem(key) ?? '{}');
      if (saved && typeof saved === 'object')
        for (const [id, version] of Object.entries(saved))
          if (typeof version === 'number') this.seen.set(id, version);
    } catch {
      // Unreadable: start again (only replays this browser saw before are lost).
    }
  }

  /** Whether `version` is not older than what was seen of `id`; notes it when newer. */
  check(id: string, version: number): boolean {
    const seen = this.seen.get(id) ?? 0;
    if (version < seen) return false;
    if (version > seen) {
      this.seen.set(id, version);
      try {
        this.storage?.setItem(this.key, JSON.stringify(Object.fromEntries(this.seen)));
      } catch {
        // Storage full or refused: kept in memory for this tab.
      }
    }
    return true;
  }
}

const seenByRing = new Map<string, SeenVersions>();

/** The seen versions of a Ring in this browser (one instance per Ring and tab). */
export function seenVersionsOf(ringId: string): SeenVersions {
  let versions = seenByRing.get(ringId);
  if (!versions) {
    let storage: Storage | undefined;
    try {
      storage = globalThis.localStorage;
    } catch {
      storage = undefined;
    }
    versions = new SeenVersions(storage, `securering:meta-versions:${ringId}`);
    seenByRing.set(ringId, versions);
  }
  return versions;
}

/** French warnings of flagged items. */
export const META_TEXT = {
  misplaced:
    'Emplacement non vérifié\u202f: cet élément a été placé ici sans la signature d’un membre (le serveur l’a peut-être déplacé).',
  unverifiable:
    'Métadonnées non vérifiables\u202f: le nom de cet élément a été modifié ou échangé sans la signature d’un membre.',
  replayed:
    'Version périmée\u202f: le serveur a renvoyé une ancienne version des métadonnées de cet élément (nom ou emplacement d’avant).',
  altered: 'Contenu non conforme\u202f: la taille de ce fichier n’est pas celle que son auteur a signée.',
} as const;

const lastSegment = (path: string) => path.slice(path.lastIndexOf('/') + 1);

async function readFolder(
  folder: TRingFolder,
  expectedParent: string | undefined,
  ctx: MetaContext,
): Promise<ReadItem> {
  if (folder.meta === null) {
    if (!ctx.namesKey) return { name: undefined, status: 'no_key' };
    const name = readName(ctx.namesKey, ctx.ringId, lastSegment(folder.path));
    return { name, status: name === undefined ? 'unverifiable' : 'legacy' };
  }
  try {
    const { meta, pin } = await openFolderMeta({
      ringId: ctx.ringId,
      folderId: folder.id,
      epochKey: ctx.epochKey,
      sealed: folder.meta,
      signerKeys: ctx.signerKeys,
    });
    const placed = expectedParent === undefined || meta.parent === expectedParent;
    const fresh = ctx.versions.check(folder.id, meta.version);
    return {
      name: meta.name,
      status: !fresh ? 'replayed' : placed ? 'verified' : 'misplaced',
      version: meta.version,
      epoch: pin.epoch,
    };
  } catch (error) {
    // Sealed under an epoch this member does not hold (yet): nothing is wrong with it.
    if (isE2eeError(error) && error.code === 'missing_key') return { name: undefined, status: 'no_key' };
    return { name: undefined, status: 'unverifiable' };
  }
}

async function readFile(file: TRingFile, folderId: string, ctx: MetaContext): Promise<ReadItem> {
  let fileKey: Uint8Array | undefined;
  try {
    fileKey = await openFileKey(file, ctx.ringId, ctx.epochKey);
  } catch {
    fileKey = undefined;
  }
  if (file.meta === null) {
    if (!ctx.namesKey) return { name: undefined, status: 'no_key' };
    const name = readFileName(ctx.namesKey, ctx.ringId, file);
    return {
      name,
      status: name === undefined ? 'unverifiable' : 'legacy',
      ...(fileKey ? { fileKey } : {}),
    };
  }
  // Without the file's key (not shared with this member yet) its name stays unknown.
  if (!fileKey) return { name: undefined, status: 'no_key' };
  try {
    const { meta } = await openFileMeta({
      ringId: ctx.ringId,
      fileId: file.id,
      fileKey,
      sealed: file.meta,
      signerKeys: ctx.signerKeys,
      // Not signed before the epoch its key was first wrapped in was created.
      minLogSeq: file.file_key ? ctx.epochKey(file.file_key.epoch)?.logSeq : undefined,
    });
    const fresh = ctx.versions.check(file.id, meta.version);
    const status: MetaStatus = !fresh
      ? 'replayed'
      : meta.content !== null && meta.content.size !== file.size_bytes
        ? 'altered'
        : meta.folder === folderId
          ? 'verified'
          : 'misplaced';
    return {
      name: meta.name,
      status,
      uploader: meta.uploader,
      type: meta.type,
      fileKey,
      version: meta.version,
      content: meta.content,
    };
  } catch {
    return { name: undefined, status: 'unverifiable' };
  }
}

/**
 * Reads and checks a folder page: the trail must chain from the root by signed parents, each
 * subfolder must name the listed folder as its parent, each file must name it as its folder.
 */
export async function readPage(page: TListFilesResponse, ctx: MetaContext): Promise<ReadPage> {
  const trail: ReadItem[] = [];
  let parentId = '';
  for (const folder of page.trail) {
    trail.push(await readFolder(folder, parentId, ctx));
    parentId = folder.id;
  }
  const folderId = page.trail.at(-1)?.id ?? '';
  const folders = new Map<string, ReadItem>();
  for (const folder of page.folders) folders.set(folder.id, await readFolder(folder, folderId, ctx));
  const files = new Map<string, ReadItem>();
  await Promise.all(page.files.map(async (file) => files.set(file.id, await readFile(file, folderId, ctx))));
  return { folderId, trail, folders, files };
}

/**
 * Who signs: the member writing the metadata now, with the epoch it writes in and the membership
 * log head its browser verified (RingKeys.logHead).
 */
export interface MetaSigner {
  memberId: string;
  signingPrivateKey: CryptoKey;
  pin: MetaPin;
}

/** The fields of upload.php / tus for a new file: opaque names and its sealed metadata. */
export async function newFileFields(options: {
  ringId: string;
  fileId: string;
  fileKey: Uint8Array;
  name: string;
  type: string;
  folderId: string;
  /** The encrypted content (size and SRF1 header) the metadata is bound to. */
  content: ContentBinding;
  signer: MetaSigner;
}): Promise<{ name: string; original_name: string; extension: string; meta: string }> {
  const meta = await sealFileMeta({
    ringId: options.ringId,
    fileId: options.fileId,
    fileKey: options.fileKey,
    meta: {
      name: options.name,
      type: /^[\x20-\x7e]{0,255}$/.test(options.type) ? options.type : '',
      folder: options.folderId,
      uploader: options.signer.memberId,
      version: 1,
      content: options.content,
    },
    pin: options.signer.pin,
    signer: options.signer,
  });
  // The server compares no file names: the legacy fields get random values that mean nothing.
  return { name: opaqueName(), original_name: opaqueName(), extension: '', meta };
}

/** rename.php's body for a file renamed (or migrated) to `name`, keeping its other metadata. */
export async function renamedFileBody(options: {
  ringId: string;
  file: TRingFile;
  read: ReadItem;
  name: string;
  folderId: string;
  signer: MetaSigner;
}) {
  const { file, read } = options;
  if (!read.fileKey) throw new Error('file key unavailable');
  // The uploader stays the signed one (for a legacy file, the one the server names).
  const uploader = read.uploader ?? file.uploaded_by ?? '';
  const meta = await sealFileMeta({
    ringId: options.ringId,
    fileId: file.id,
    fileKey: read.fileKey,
    meta: {
      name: options.name,
      type: read.type ?? '',
      folder: options.folderId,
      uploader,
      // The next version (readers who saw this one refuse the older one from then on).
      version: (read.version ?? 0) + 1,
      content: read.content ?? null,
    },
    pin: options.signer.pin,
    signer: options.signer,
  });
  return { id: file.id, new_name: opaqueName(), original_name: opaqueName(), extension: '', meta };
}

/** mkdir.php's body: a random id, the name's lookup tag under the parent, sealed name and parent. */
export async function newFolderBody(options: {
  ringId: string;
  epochKey: EpochKey;
  parentPath: string;
  parentId: string;
  name: string;
  signer: MetaSigner;
}) {
  const id = crypto.randomUUID();
  const [tag, meta] = await Promise.all([
    deriveNameTagKey(options.epochKey).then((key) => nameTag(key, options.parentId, options.name)),
    sealFolderMeta({
      ringId: options.ringId,
      folderId: id,
      epochKey: options.epochKey,
      meta: { name: options.name, parent: options.parentId, version: 1 },
      pin: options.signer.pin,
      signer: options.signer,
    }),
  ]);
  return { parent: options.parentPath, name: tag, id, meta };
}

/**
 * rename-folder.php's body for a folder renamed (or migrated, or re-sealed under a newer epoch) to
 * `name` in place: sealed under `epochKey`, its segment the name's tag in that epoch.
 */
export async function renamedFolderBody(options: {
  ringId: string;
  epochKey: EpochKey;
  folder: TRingFolder;
  /** What this browser read of it: its signed version (none for a legacy folder). */
  read?: ReadItem | undefined;
  parentId: string;
  name: string;
  signer: MetaSigner;
}) {
  const { folder } = options;
  const [tag, meta] = await Promise.all([
    deriveNameTagKey(options.epochKey).then((key) => nameTag(key, options.parentId, options.name)),
    sealFolderMeta({
      ringId: options.ringId,
      folderId: folder.id,
      epochKey: options.epochKey,
      meta: { name: options.name, parent: options.parentId, version: (options.read?.version ?? 0) + 1 },
      pin: options.signer.pin,
      signer: options.signer,
    }),
  ]);
  return { old_path: folder.path, new_path: joinPath(parentOf(folder.path), tag), meta };
}

/** The API calls a migration makes (files-api's rename and renameFolder). */
export interface MigrationApi {
  rename(body: Awaited<ReturnType<typeof renamedFileBody>>): Promise<unknown>;
  renameFolder(body: Awaited<ReturnType<typeof renamedFolderBody>>): Promise<unknown>;
}

/**
 * Migrates the page's items without metadata whose legacy names this member reads: each gets its
 * sealed metadata signed by this member (its uploader as the server named it), its folder's
 * segment a lookup tag. Folders sealed under an epoch older than `epochKey` (a rotation since)
 * are sealed again under it, with a new tag and the next version. Only in a folder whose own
 * trail verified. Returns how many changed; failures (another member migrating at the same time)
 * are skipped.
 */
export async function migratePage(
  page: TListFilesResponse,
  read: ReadPage,
  options: { ringId: string; epochKey: EpochKey; signer: MetaSigner; api: MigrationApi },
): Promise<number> {
  const doubtful: readonly MetaStatus[] = ['unverifiable', 'misplaced', 'replayed'];
  if (read.trail.some((item) => doubtful.includes(item.status))) return 0;
  let changed = 0;
  for (const folder of page.folders) {
    const item = read.folders.get(folder.id);
    if (item?.name === undefined) continue;
    const legacy = folder.meta === null && item.status === 'legacy';
    const rotated =
      folder.meta !== null &&
      item.status === 'verified' &&
      item.epoch !== undefined &&
      item.epoch < options.epochKey.epoch;
    if (!legacy && !rotated) continue;
    try {
      await options.api.renameFolder(
        await renamedFolderBody({
          ringId: options.ringId,
          epochKey: options.epochKey,
          folder,
          read: item,
          parentId: read.folderId,
          name: item.name,
          signer: options.signer,
        }),
      );
      changed++;
    } catch {
      // Someone else migrated or moved it meanwhile: the next listing shows where it is.
    }
  }
  for (const file of page.files) {
    const item = read.files.get(file.id);
    if (file.meta !== null || item?.status !== 'legacy' || item.name === undefined || !item.fileKey) continue;
    try {
      await options.api.rename(
        await renamedFileBody({
          ringId: options.ringId,
          file,
          read: item,
          name: item.name,
          folderId: read.folderId,
          signer: options.signer,
        }),
      );
      changed++;
    } catch {
      // idem
    }
  }
  return changed;
}

/** A destination of « Déplacer »: a folder whose signed name and parent chain up to the root. */
export interface FolderChoice {
  folder: TRingFolder;
  /** Its name and its ancestors', root first (for the indented list and the order). */
  names: string[];
}

/**
 * The Ring's folders (folders.php) as this browser verifies them, for the « Déplacer » dialog:
 * each one's sealed parent must be the folder at its parent path, up to the root; a folder whose
 * chain does not verify (unreadable, moved or swapped by the server, replayed) is left out, and so
 * are the folders below it. Sorted as a tree, parents first.
 */
export async function readFolderChoices(folders: TRingFolder[], ctx: MetaContext): Promise<FolderChoice[]> {
  const byPath = new Map(folders.map((f) => [f.path, f]));
  const read = new Map<string, ReadItem>();
  await Promise.all(
    folders.map(async (folder) => {
      const parentPath = parentOf(folder.path);
      const parent = parentPath === '' ? '' : byPath.get(parentPath)?.id;
      if (parent === undefined) return;
      read.set(folder.path, await readFolder(folder, parent, ctx));
    }),
  );
  const trusted = (item: ReadItem | undefined): item is ReadItem & { name: string } =>
    item?.name !== undefined && (item.status === 'verified' || item.status === 'legacy');
  const choices: FolderChoice[] = [];
  for (const folder of folders) {
    const names: string[] = [];
    let path = folder.path;
    let ok = true;
    while (path !== '') {
      const item = read.get(path);
      if (!trusted(item)) {
        ok = false;
        break;
      }
      names.unshift(item.name);
      path = parentOf(path);
    }
    if (ok) choices.push({ folder, names });
  }
  const collator = new Intl.Collator('fr', { sensitivity: 'base', numeric: true });
  const compare = (a: string[], b: string[]): number => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const order = collator.compare(a[i]!, b[i]!);
      if (order !== 0) return order;
    }
    return a.length - b.length;
  };
  return choices.sort((a, b) => compare(a.names, b.names));
}

/**
 * move.php's body: the file's metadata sealed again naming `folderId` ("" for the root) with the
 * next version, signed by the mover; only for a file whose metadata this browser verified here.
 */
export async function movedFileBody(options: {
  ringId: string;
  file: TRingFile;
  read: ReadItem;
  folderPath: string;
  folderId: string;
  signer: MetaSigner;
}) {
  const { file, read } = options;
  if (read.status !== 'verified' || read.name === undefined || read.version === undefined || !read.fileKey)
    throw new Error('file metadata not verified');
  const version = read.version + 1;
  const meta = await sealFileMeta({
    ringId: options.ringId,
    fileId: file.id,
    fileKey: read.fileKey,
    meta: {
      name: read.name,
      type: read.type ?? '',
      folder: options.folderId,
      uploader: read.uploader ?? '',
      version,
      content: read.content ?? null,
    },
    pin: options.signer.pin,
    signer: options.signer,
  });
  return { id: file.id, folder: options.folderPath, meta, meta_version: version };
}
