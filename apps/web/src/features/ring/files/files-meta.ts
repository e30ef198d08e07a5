import type { TListFilesResponse, TRingFile, TRingFolder } from '@securering/contract';
import {
  type EpochKey,
  deriveNameTagKey,
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
 * Items from before the metadata ("legacy") are read the old way and migrated (`migrationsOf`).
 */

/** `no_key`: this member holds no key to read it yet (nothing is wrong with it). */
export type MetaStatus = 'verified' | 'legacy' | 'misplaced' | 'unverifiable' | 'no_key';

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
  /** The keys the verified membership log gives a member (RingKeys.verifyKeysOf). */
  verifyKeysOf(memberId: string): Promise<CryptoKey[]>;
}

/** French warnings of flagged items. */
export const META_TEXT = {
  misplaced:
    'Emplacement non vérifié\u202f: cet élément a été placé ici sans la signature d’un membre (le serveur l’a peut-être déplacé).',
  unverifiable:
    'Métadonnées non vérifiables\u202f: le nom de cet élément a été modifié ou échangé sans la signature d’un membre.',
} as const;

const lastSegment = (path: string) => path.slice(path.lastIndexOf('/') + 1);

async function readFolder(
  folder: TRingFolder,
  expectedParent: string | undefined,
  ctx: MetaContext,
): Promise<ReadItem> {
  if (!ctx.namesKey) return { name: undefined, status: 'no_key' };
  if (folder.meta === null) {
    const name = readName(ctx.namesKey, ctx.ringId, lastSegment(folder.path));
    return { name, status: name === undefined ? 'unverifiable' : 'legacy' };
  }
  try {
    const { meta } = await openFolderMeta({
      ringId: ctx.ringId,
      folderId: folder.id,
      namesKey: ctx.namesKey,
      sealed: folder.meta,
      verifyKeysOf: ctx.verifyKeysOf,
    });
    const placed = expectedParent === undefined || meta.parent === expectedParent;
    return { name: meta.name, status: placed ? 'verified' : 'misplaced' };
  } catch {
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
      verifyKeysOf: ctx.verifyKeysOf,
    });
    return {
      name: meta.name,
      status: meta.folder === folderId ? 'verified' : 'misplaced',
      uploader: meta.uploader,
      type: meta.type,
      fileKey,
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

/** Who signs: the member writing the metadata now. */
export interface MetaSigner {
  memberId: string;
  signingPrivateKey: CryptoKey;
}

/** The fields of upload.php / tus for a new file: opaque names and its sealed metadata. */
export async function newFileFields(options: {
  ringId: string;
  fileId: string;
  fileKey: Uint8Array;
  name: string;
  type: string;
  folderId: string;
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
    },
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
    meta: { name: options.name, type: read.type ?? '', folder: options.folderId, uploader },
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
      namesKey: options.epochKey.namesKey,
      meta: { name: options.name, parent: options.parentId },
      signer: options.signer,
    }),
  ]);
  return { parent: options.parentPath, name: tag, id, meta };
}

/** rename-folder.php's body for a folder renamed (or migrated) to `name` in place. */
export async function renamedFolderBody(options: {
  ringId: string;
  epochKey: EpochKey;
  folder: TRingFolder;
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
      namesKey: options.epochKey.namesKey,
      meta: { name: options.name, parent: options.parentId },
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
 * segment a lookup tag. Only in a folder whose own trail verified. Returns how many changed;
 * failures (another member migrating at the same time) are skipped.
 */
export async function migratePage(
  page: TListFilesResponse,
  read: ReadPage,
  options: { ringId: string; epochKey: EpochKey; signer: MetaSigner; api: MigrationApi },
): Promise<number> {
  if (read.trail.some((item) => item.status === 'unverifiable' || item.status === 'misplaced')) return 0;
  let changed = 0;
  for (const folder of page.folders) {
    const item = read.folders.get(folder.id);
    if (folder.meta !== null || item?.status !== 'legacy' || item.name === undefined) continue;
    try {
      await options.api.renameFolder(
        await renamedFolderBody({
          ringId: options.ringId,
          epochKey: options.epochKey,
          folder,
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
