import { RING_FILES_API_PATHS as PATHS, RING_FILES_MESSAGES, ZListFilesResponse } from '@securering/contract';
import { E2eeError, isE2eeError } from '@securering/e2ee';
import { ApiError, apiRequest } from '@/lib/api-client';
import type { RingKeys } from '../e2ee/use-ring-keys';
import { filesApi } from '../files/files-api';
import { type MetaSigner, newFolderBody, readPage, seenVersionsOf } from '../files/files-meta';
import { FILES_TEXT, type StoredUpload, UploadError, uploadFiles } from '../files/uploads';
import {
  encodeAttachment,
  encodeKey,
  fitThumbnail,
  thumbnailOf,
  thumbnailSize,
  type AttachmentThumbnail,
} from './attachment-message';

/**
 * Putting files in a conversation (issue 29), loaded with the first one: each file is uploaded to
 * the file space's folder « Pièces jointes » (created on first use) by the file space's own upload
 * path — same encryption, same signed metadata, same quota — then one attachment message goes to
 * the conversation (attachment-message.ts). Progress and errors show in the conversation.
 */

/** The file space's folder where attachments go (its name is sealed like any folder's). */
export const ATTACHMENTS_FOLDER = 'Pièces jointes';

export const ATTACHMENT_TEXT = {
  noSend:
    'Le fichier est enregistré dans «\u202fPièces jointes\u202f» mais le message n’a pas pu être envoyé.',
} as const;

export type AttachmentUploadStatus = 'preparing' | 'uploading' | 'sending' | 'failed';

export interface AttachmentUpload {
  id: string;
  conversationId: string;
  name: string;
  size: number;
  status: AttachmentUploadStatus;
  percent: number;
  error?: string;
}

type Listener = () => void;

/** The attachments on their way, per conversation, readable with useSyncExternalStore. */
class AttachmentUploads {
  private items: AttachmentUpload[] = [];
  private readonly listeners = new Set<Listener>();

  subscribe = (listener: Listener) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = () => this.items;

  add(item: AttachmentUpload): void {
    this.items = [...this.items, item];
    this.emit();
  }

  update(id: string, changes: Partial<AttachmentUpload>): void {
    this.items = this.items.map((item) => (item.id === id ? { ...item, ...changes } : item));
    this.emit();
  }

  remove(id: string): void {
    this.items = this.items.filter((item) => item.id !== id);
    this.emit();
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}

export const attachmentUploads = new AttachmentUploads();

export interface AttachmentContext {
  conversationId: string;
  keys: RingKeys;
  /**
   * Sends the attachment's plaintext in the conversation after any send in progress; resolves true
   * once the server stored it (ConversationFeed.sendAction).
   */
  send(text: string): Promise<boolean>;
}

function listFolder(folder: string) {
  return apiRequest(`${PATHS.list}?${new URLSearchParams({ folder }).toString()}`, {
    auth: 'ring',
    schema: ZListFilesResponse,
    cache: 'no-store',
    networkError: RING_FILES_MESSAGES.connectionError,
  });
}

function signerOf(keys: RingKeys) {
  return (epoch: number): MetaSigner => {
    const head = keys.logHead();
    if (!keys.signingKey || !head) throw new E2eeError('missing_key', 'locked');
    return { memberId: keys.memberId, signingPrivateKey: keys.signingKey, pin: { epoch, ...head } };
  };
}

/**
 * The folder « Pièces jointes » at the root, found by its verified signed name, else created; with
 * the root's listing (storage left, file size limit).
 */
async function attachmentsFolder(keys: RingKeys) {
  const find = async () => {
    const root = await listFolder('');
    const page = await readPage(root, {
      ringId: keys.ringId,
      namesKey: keys.namesKey(),
      epochKey: (epoch) => keys.epochKey(epoch),
      signerKeys: (pin) => keys.metaSignerKeys(pin),
      versions: seenVersionsOf(keys.ringId),
    });
    const folder = root.folders.find((f) => {
      const item = page.folders.get(f.id);
      return item?.name === ATTACHMENTS_FOLDER && (item.status === 'verified' || item.status === 'legacy');
    });
    return { root, folder: folder ? { path: folder.path, id: folder.id } : null };
  };
  const found = await find();
  if (found.folder) return { root: found.root, folder: found.folder };
  const epochKey = keys.currentEpochKey() ?? (await keys.ensureSendableEpoch());
  const body = await newFolderBody({
    ringId: keys.ringId,
    epochKey,
    parentPath: '',
    parentId: '',
    name: ATTACHMENTS_FOLDER,
    signer: signerOf(keys)(epochKey.epoch),
  });
  try {
    const made = await filesApi.mkdir(body);
    return { root: found.root, folder: { path: made.folder, id: body.id } };
  } catch (error) {
    // Another member created it at the same moment: use theirs.
    const again = await find();
    if (again.folder) return { root: again.root, folder: again.folder };
    throw error;
  }
}

/** A small encrypted-with-the-message preview of an image, or undefined (not an image, or none fits). */
export async function makeThumbnail(file: Blob): Promise<AttachmentThumbnail | undefined> {
  if (!/^image\/(png|jpeg|gif|webp|bmp|avif)$/.test(file.type)) return undefined;
  try {
    const bitmap = await createImageBitmap(file);
    const size = thumbnailSize(bitmap.width, bitmap.height);
    const canvas = document.createElement('canvas');
    canvas.width = size.width;
    canvas.height = size.height;
    const context = canvas.getContext('2d');
    if (!context) return undefined;
    // JPEG has no transparency: a white background rather than black.
    context.fillStyle = '#fff';
    context.fillRect(0, 0, size.width, size.height);
    context.drawImage(bitmap, 0, 0, size.width, size.height);
    bitmap.close();
    const fitted = await fitThumbnail(
      (type, quality) => new Promise((resolve) => canvas.toBlob(resolve, type, quality)),
    );
    return fitted ? thumbnailOf(fitted, size) : undefined;
  } catch {
    return undefined;
  }
}

function messageOf(error: unknown): string {
  if (error instanceof UploadError || error instanceof ApiError) return error.message;
  if (isE2eeError(error)) return FILES_TEXT.keysUnavailable;
  return RING_FILES_MESSAGES.uploadError;
}

/**
 * Uploads the files into « Pièces jointes » and sends one attachment message for each stored one.
 * Refused files (too large, quota full) show the file space's French message on their line.
 */
export async function sendAttachments(files: readonly File[], context: AttachmentContext): Promise<void> {
  const lines = files.map((file) => {
    const line: AttachmentUpload = {
      id: crypto.randomUUID(),
      conversationId: context.conversationId,
      name: file.name,
      size: file.size,
      status: 'preparing',
      percent: 0,
    };
    attachmentUploads.add(line);
    return { file, line };
  });
  const lineOf = (file: File) => lines.find((l) => l.file === file)!.line;
  const fail = (file: File, error: string) =>
    attachmentUploads.update(lineOf(file).id, { status: 'failed', error });

  let target: Awaited<ReturnType<typeof attachmentsFolder>>;
  try {
    target = await attachmentsFolder(context.keys);
  } catch (error) {
    for (const { file } of lines) fail(file, messageOf(error));
    return;
  }
  const { keys } = context;
  const thumbs = new Map<File, Promise<AttachmentThumbnail | undefined>>(
    files.map((file) => [file, makeThumbnail(file)]),
  );
  const stored: Array<{ file: File; upload: StoredUpload }> = [];
  await uploadFiles(files, {
    ringId: keys.ringId,
    folder: target.folder.path,
    folderId: target.folder.id,
    signer: signerOf(keys),
    budget: {
      remainingBytes: target.root.storage.remaining,
      maxFileBytes: target.root.max_file_bytes,
      maxFileSizeMb: target.root.max_file_size_mb,
    },
    ensureSendableEpoch: () => keys.ensureSendableEpoch(),
    onStored: () => undefined,
    onError: (error) => {
      const file = files.find((f) => f.name === error.fileName && lineOf(f).status !== 'failed');
      if (file) fail(file, error.message || RING_FILES_MESSAGES.uploadError);
    },
    onProgress: (file, percent) =>
      attachmentUploads.update(lineOf(file).id, { status: 'uploading', percent }),
    onStoredFile: (file, upload) => {
      attachmentUploads.update(lineOf(file).id, { status: 'sending', percent: 100 });
      stored.push({ file, upload });
    },
  });
  for (const { file, upload } of stored) {
    const thumb = await thumbs.get(file);
    const text = encodeAttachment({
      fileId: upload.fileId,
      folderId: target.folder.id,
      name: file.name,
      size: file.size,
      type: /^[\x20-\x7e]{0,255}$/.test(file.type) ? file.type : '',
      key: encodeKey(upload.fileKey),
      content: upload.content,
      ...(thumb ? { thumb } : {}),
    });
    const id = lineOf(file).id;
    if (await context.send(text)) attachmentUploads.remove(id);
    else attachmentUploads.update(id, { status: 'failed', error: ATTACHMENT_TEXT.noSend });
  }
  // Files the upload left in 'preparing' (refused before any line was marked) are reported too.
  for (const { line } of lines) {
    const current = attachmentUploads.getSnapshot().find((item) => item.id === line.id);
    if (current && current.status === 'preparing')
      fail(lines.find((l) => l.line === line)!.file, RING_FILES_MESSAGES.uploadError);
  }
}
