import { E2EE_MESSAGES, RING_FILES_MESSAGES, type TRingFile, plainFileSize } from '@securering/contract';
import {
  CONTENT_MISMATCH,
  type ContentBinding,
  type EpochKey,
  bindContent,
  decryptStream,
  isE2eeError,
} from '@securering/e2ee';
import { ApiError } from '@/lib/api-client';
import { saveBlob } from '@/lib/save-blob';
import { openDownload } from './files-api';
import { openFileKey } from './files-crypto';
import { STREAM_DOWNLOAD_THRESHOLD_KEY, contentDispositionOf, streamThresholdOf } from './files-policy';

/**
 * "Télécharger": the stored bytes are fetched as a stream and decrypted chunk by chunk in the page
 * (a chunk that does not verify stops everything). Up to the threshold (100 Mo) the plain file is
 * gathered in a Blob and saved; above it, it is streamed to the browser's download through a
 * service worker (public/download-sw.js), so the page never holds it whole.
 */

/** A failed download, with the French title and detail to show. */
export class DownloadError extends Error {
  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'DownloadError';
  }
}

/**
 * The error toast of a failed download, from the file space or a conversation: the failure's French
 * title and detail, or the generic download error for anything unexpected.
 */
export function downloadFailureToast(error: unknown) {
  const failure =
    error instanceof DownloadError ? error : new DownloadError(RING_FILES_MESSAGES.downloadError);
  return {
    title: failure.message,
    ...(failure.detail ? { description: failure.detail } : {}),
    variant: 'error' as const,
    duration: 8000,
  };
}

export const DOWNLOAD_TEXT = {
  tampered: 'Le contenu du fichier ne se vérifie pas\u202f: il a été modifié ou est incomplet.',
  replayed:
    'Le contenu reçu n’est pas celui que son auteur a signé\u202f: le serveur a renvoyé les octets d’un autre fichier ou d’une autre version.',
} as const;

function streamThreshold(): number {
  try {
    return streamThresholdOf(window.localStorage.getItem(STREAM_DOWNLOAD_THRESHOLD_KEY));
  } catch {
    return streamThresholdOf(null);
  }
}

/** How the last download was saved (the tests check the service-worker path is taken). */
export type DownloadRoute = 'blob' | 'stream';

export async function downloadFile(
  file: TRingFile,
  filename: string,
  context: {
    ringId: string;
    epochKey(epoch: number): EpochKey | undefined;
    /** The content its verified metadata names (null: none, a file from before it). */
    content: ContentBinding | null;
  },
): Promise<DownloadRoute> {
  let fileKey: Uint8Array | undefined;
  try {
    fileKey = await openFileKey(file, context.ringId, context.epochKey);
  } catch {
    throw new DownloadError(RING_FILES_MESSAGES.downloadError, DOWNLOAD_TEXT.tampered);
  }
  if (!fileKey) throw new DownloadError(RING_FILES_MESSAGES.downloadError, E2EE_MESSAGES.notKeyHolder);
  return downloadWithKey(file.id, fileKey, filename, {
    plainSize: plainFileSize(file.size_bytes) ?? Number.NaN,
    content: context.content,
  });
}

/**
 * The download of a file whose key the caller already holds (the files tab unwraps it from the
 * listing; an attachment message carries it): fetched, checked against `content`, decrypted, saved.
 */
export async function downloadWithKey(
  fileId: string,
  fileKey: Uint8Array,
  filename: string,
  options: { plainSize: number; content: ContentBinding | null },
): Promise<DownloadRoute> {
  const { plainSize, content } = options;
  let body: ReadableStream<Uint8Array>;
  try {
    ({ body } = await openDownload(fileId));
  } catch (error) {
    if (error instanceof ApiError && error.kind === 'network')
      throw new DownloadError(RING_FILES_MESSAGES.connectionError);
    throw new DownloadError(
      RING_FILES_MESSAGES.downloadError,
      error instanceof ApiError ? error.message : undefined,
    );
  }
  // Bytes of another file or encryption than the signed metadata names stop the download.
  const plain = decryptStream(content ? bindContent(body, content) : body, fileKey);
  const failed = (error: unknown): never => {
    if (error instanceof DownloadError) throw error;
    if (isE2eeError(error))
      throw new DownloadError(
        RING_FILES_MESSAGES.downloadError,
        error.message === CONTENT_MISMATCH ? DOWNLOAD_TEXT.replayed : DOWNLOAD_TEXT.tampered,
      );
    if (error instanceof TypeError) throw new DownloadError(RING_FILES_MESSAGES.connectionError);
    throw new DownloadError(RING_FILES_MESSAGES.downloadError);
  };

  if (plainSize > streamThreshold()) {
    const { canStreamDownloads, streamDownload } = await import('./stream-download');
    if (canStreamDownloads()) {
      try {
        await streamDownload(plain, {
          disposition: contentDispositionOf(filename),
          size: plainSize,
          onFallback: (rest) => collect(rest).then((blob) => saveBlob(filename, blob)),
        });
        return 'stream';
      } catch (error) {
        return failed(error);
      }
    }
  }
  try {
    saveBlob(filename, await collect(plain));
    return 'blob';
  } catch (error) {
    return failed(error);
  }
}

/** The whole (decrypted) stream as a Blob; rejects with the stream's error if a chunk fails. */
async function collect(stream: ReadableStream<Uint8Array>): Promise<Blob> {
  const parts: BlobPart[] = [];
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read())
    parts.push(read.value as Uint8Array<ArrayBuffer>);
  return new Blob(parts);
}
