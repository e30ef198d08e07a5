import { RING_FILES_API_PATHS as PATHS, RING_FILES_MESSAGES } from '@securering/contract';
import { type ContentBinding, type EpochKey, contentBinding } from '@securering/e2ee';
import { Upload, type DetailedError } from 'tus-js-client';
import { ApiError } from '@/lib/api-client';
import { type UploadFields, ringAuthHeaders, sessionExpired, uploadMultipart } from './files-api';
import { EncryptedFile, newFileKey } from './files-crypto';
import { type MetaSigner, newFileFields } from './files-meta';
import { TUS_CHUNK_BYTES, checkUploads, percentOf, uploadRouteOf, type UploadBudget } from './files-policy';

/**
 * The uploads of the files tab. Each file is checked against the size limit and the space left
 * before it is read, then encrypted a part at a time (EncryptedFile) and sent: small files through
 * upload.php, large ones through tus in parts of TUS_CHUNK_BYTES.
 *
 * Resuming: the file key, the nonce prefix and the tus upload URL live in this page's memory, with
 * the File itself. After a dropped connection tus asks the server where it stopped (HEAD) and sends
 * the rest, encrypting again exactly the same bytes; after several failed retries the upload shows
 * as interrupted, and resumes by itself when the browser is back online, or with "Reprendre". A
 * reload forgets the key, so it cannot resume then: keeping file keys in browser storage to survive
 * reloads is not worth the exposure; the server drops the abandoned part after a day.
 *
 * Jobs live in a store outside React, so an upload keeps running and showing its progress when the
 * tab is left and opened again.
 */

export type UploadStatus = 'encrypting' | 'uploading' | 'interrupted' | 'done';

export interface UploadJob {
  id: string;
  /** The plain file name (this page's memory only). */
  name: string;
  status: UploadStatus;
  percent: number;
}

type Listener = () => void;

/** Uploads in progress, readable with useSyncExternalStore. */
class UploadStore {
  private jobs: UploadJob[] = [];
  private readonly listeners = new Set<Listener>();
  private readonly controls = new Map<string, { resume(): void; cancel(): void }>();

  subscribe = (listener: Listener) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = () => this.jobs;

  add(job: UploadJob): void {
    this.jobs = [...this.jobs, job];
    this.emit();
  }

  update(id: string, changes: Partial<UploadJob>): void {
    this.jobs = this.jobs.map((job) => (job.id === id ? { ...job, ...changes } : job));
    this.emit();
  }

  remove(id: string): void {
    this.jobs = this.jobs.filter((job) => job.id !== id);
    this.controls.delete(id);
    this.emit();
  }

  setControls(id: string, controls: { resume(): void; cancel(): void }): void {
    this.controls.set(id, controls);
  }

  resume(id: string): void {
    this.controls.get(id)?.resume();
  }

  cancel(id: string): void {
    this.controls.get(id)?.cancel();
  }

  /** Interrupted uploads, to resume when the browser is back online. */
  resumeInterrupted(): void {
    for (const job of this.jobs) if (job.status === 'interrupted') this.resume(job.id);
  }

  get busy(): boolean {
    return this.jobs.some((job) => job.status !== 'done');
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}

export const uploadStore = new UploadStore();

if (typeof window !== 'undefined') {
  window.addEventListener('online', () => uploadStore.resumeInterrupted());
  // Closing or reloading the page would lose uploads in progress (their keys live here).
  window.addEventListener('beforeunload', (event) => {
    if (uploadStore.busy) event.preventDefault();
  });
}

/** A refused or failed upload, with the French message to show. */
export class UploadError extends Error {
  constructor(
    message: string,
    readonly fileName: string,
  ) {
    super(message);
    this.name = 'UploadError';
  }
}

class UploadCancelled extends Error {}

export interface UploadContext {
  ringId: string;
  /** The folder to upload into (encrypted path). */
  folder: string;
  /** Its id as its signed trail names it ("" for the root): the files' metadata binds it. */
  folderId: string;
  /** Who signs the files' metadata (this member). */
  signer: (epoch: number) => MetaSigner;
  budget: UploadBudget;
  /** The epoch key to wrap file keys with (RingKeys.ensureSendableEpoch). */
  ensureSendableEpoch(): Promise<EpochKey>;
  /** Called for each stored file (refresh the list). */
  onStored(): void;
  /** Called for each refused or failed file. */
  onError(error: UploadError): void;
  /** Called for each stored file with what reads it (attachments put it in a message). */
  onStoredFile?(file: File, stored: StoredUpload): void;
  /** Called as a file's upload progresses (0–100). */
  onProgress?(file: File, percent: number): void;
}

/** A stored file: its id, its key and the encryption its signed metadata names. */
export interface StoredUpload {
  fileId: string;
  fileKey: Uint8Array;
  content: ContentBinding;
}

/** Sends the files one after the other; resolves with how many were stored. */
export async function uploadFiles(files: readonly File[], context: UploadContext): Promise<number> {
  const checks = checkUploads(files, context.budget);
  const accepted: File[] = [];
  checks.forEach((check, i) => {
    const file = files[i]!;
    if (check.ok) accepted.push(file);
    else context.onError(new UploadError(check.reason, file.name));
  });
  if (accepted.length === 0) return 0;
  let epochKey: EpochKey;
  try {
    epochKey = await context.ensureSendableEpoch();
  } catch {
    for (const file of accepted) context.onError(new UploadError(FILES_TEXT.keysUnavailable, file.name));
    return 0;
  }
  let stored = 0;
  for (const file of accepted) {
    try {
      const upload = await uploadOne(file, epochKey, context);
      stored++;
      context.onStored();
      context.onStoredFile?.(file, upload);
    } catch (error) {
      if (error instanceof UploadCancelled) continue;
      context.onError(
        new UploadError(
          error instanceof ApiError || error instanceof UploadError
            ? error.message
            : RING_FILES_MESSAGES.uploadError,
          file.name,
        ),
      );
    }
  }
  return stored;
}

/** French texts of the files tab that the spec does not give. */
export const FILES_TEXT = {
  keysUnavailable:
    'Les clés du Ring ne sont pas disponibles\u202f: déverrouillez le chiffrement puis réessayez.',
  interrupted: 'Envoi interrompu',
  folderNotReady: 'Le dossier est encore en cours de vérification\u202f: réessayez dans un instant.',
} as const;

async function uploadOne(file: File, epochKey: EpochKey, context: UploadContext): Promise<StoredUpload> {
  const jobId = crypto.randomUUID();
  uploadStore.add({ id: jobId, name: file.name, status: 'encrypting', percent: 0 });
  const onPercent = (percent: number) => {
    uploadStore.update(jobId, { status: 'uploading', percent });
    context.onProgress?.(file, percent);
  };
  try {
    const { fileId, fileKey, wrapped } = await newFileKey(epochKey, context.ringId);
    const encrypted = await EncryptedFile.open(file, fileKey);
    const content = contentBinding(encrypted.header, encrypted.size);
    const fields: UploadFields = {
      folder: context.folder,
      ...(await newFileFields({
        ringId: context.ringId,
        fileId,
        fileKey,
        name: file.name,
        type: file.type,
        folderId: context.folderId,
        // The metadata names this encryption of the content: its header and stored size.
        content,
        signer: context.signer(epochKey.epoch),
      })),
      file_id: fileId,
      file_key: wrapped,
    };
    if (uploadRouteOf(file.size) === 'multipart') {
      const controller = new AbortController();
      uploadStore.setControls(jobId, { resume: () => undefined, cancel: () => controller.abort() });
      const body = await encrypted.slice(0, encrypted.size);
      uploadStore.update(jobId, { status: 'uploading' });
      try {
        await uploadMultipart(
          fields,
          body,
          (sent, total) => onPercent(percentOf(sent, total)),
          controller.signal,
        );
      } catch (error) {
        if (error instanceof DOMException && error.name === 'AbortError') throw new UploadCancelled();
        throw error;
      }
    } else {
      uploadStore.update(jobId, { status: 'uploading' });
      await uploadWithTus(jobId, fields, encrypted, onPercent);
    }
    uploadStore.update(jobId, { status: 'done', percent: 100 });
    window.setTimeout(() => uploadStore.remove(jobId), 2500);
    return { fileId, fileKey, content };
  } catch (error) {
    uploadStore.remove(jobId);
    throw error;
  }
}

/** The tus answer's French error, else the upload fallback. */
function tusErrorMessage(error: DetailedError): string {
  const body = error.originalResponse?.getBody();
  if (body) {
    try {
      const json = JSON.parse(body) as { error?: unknown };
      if (typeof json.error === 'string' && json.error !== '') return json.error;
    } catch {
      // tus's own plain-text answers
    }
  }
  return RING_FILES_MESSAGES.uploadError;
}

const statusOf = (error: unknown) =>
  (error as Partial<DetailedError> | null)?.originalResponse?.getStatus() ?? 0;

/**
 * A large file through tus: parts of TUS_CHUNK_BYTES encrypted on demand; a dropped connection
 * is retried from the server's offset, and after the retries the job waits as "interrupted".
 */
function uploadWithTus(
  jobId: string,
  fields: UploadFields,
  encrypted: EncryptedFile,
  onPercent: (percent: number) => void,
): Promise<void> {
  const metadata: Record<string, string> = {
    name: fields.name,
    original_name: fields.original_name,
    file_id: fields.file_id,
    file_key: JSON.stringify(fields.file_key),
    meta: fields.meta,
  };
  // Empty values are left out (a key without value is the root folder / no extension).
  if (fields.folder !== '') metadata.folder = fields.folder;
  if (fields.extension !== '') metadata.extension = fields.extension;

  return new Promise<void>((resolve, reject) => {
    let cancelled = false;
    const upload = new Upload(new Blob([]), {
      endpoint: PATHS.tus,
      uploadSize: encrypted.size,
      chunkSize: TUS_CHUNK_BYTES,
      metadata,
      retryDelays: [0, 1000, 3000, 5000, 10_000],
      // The URL is kept by this Upload object only: a fingerprint in localStorage would hold
      // the plain file name, and without the key (memory only) a reload could not resume anyway.
      storeFingerprintForResuming: false,
      removeFingerprintOnSuccess: true,
      fileReader: {
        openFile: () =>
          Promise.resolve({
            size: encrypted.size,
            slice: async (start: number, end: number) => ({
              value: await encrypted.slice(start, end),
              done: end >= encrypted.size,
            }),
            close: () => undefined,
          }),
      },
      onBeforeRequest(request) {
        for (const [name, value] of Object.entries(ringAuthHeaders())) request.setHeader(name, value);
      },
      onProgress(sent, total) {
        onPercent(percentOf(sent, total));
      },
      onShouldRetry(error) {
        const status = statusOf(error);
        if (status === 0 || status >= 500 || status === 423) return navigator.onLine !== false;
        // 409 on a PATCH: the offsets disagree; HEAD tells the right one.
        return status === 409 && error.originalRequest?.getMethod() === 'PATCH';
      },
      onSuccess() {
        resolve();
      },
      onError(error) {
        if (cancelled) return;
        const status = statusOf(error);
        if (status === 401) {
          reject(sessionExpired());
        } else if (status === 0 || status >= 500) {
          // The server keeps what it got: wait to resume (online event or "Reprendre").
          uploadStore.update(jobId, { status: 'interrupted' });
        } else {
          reject(new UploadError(tusErrorMessage(error as DetailedError), ''));
        }
      },
    });
    uploadStore.setControls(jobId, {
      resume() {
        uploadStore.update(jobId, { status: 'uploading' });
        upload.start();
      },
      cancel() {
        cancelled = true;
        // Terminates the upload on the server: its reserved bytes are released.
        void upload.abort(true).catch(() => undefined);
        reject(new UploadCancelled());
      },
    });
    upload.start();
  });
}
