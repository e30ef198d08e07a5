import {
  MESSAGES,
  RING_FILES_API_PATHS as PATHS,
  RING_FILES_MESSAGES,
  ZAddFileKeysResponse,
  ZDeleteFileResponse,
  ZFileKeysResponse,
  ZListFilesResponse,
  ZListFoldersResponse,
  ZMkdirResponse,
  ZMoveFileResponse,
  ZRenameFileResponse,
  ZRenameFolderResponse,
  ZRmdirResponse,
  ZUploadFileResponse,
  type TMkdirRequest,
  type TMoveFileRequest,
  type TRenameFileRequest,
  type TRenameFolderRequest,
  type TRingFile,
  type TWrappedFileKey,
} from '@securering/contract';
import { queryOptions } from '@tanstack/react-query';
import type { z } from 'zod';
import {
  ApiError,
  SESSION_EXPIRED_EVENT,
  apiRequest,
  clearSession,
  hasSession,
  sessionHeaders,
} from '@/lib/api-client';

/** The file space's calls (spec 2 §7 `rings/files/*`), over the Ring session. */

export const FILES_QUERY_KEY = ['ring', 'files'] as const;

/** GET list.php?folder= (the folder's files and subfolders, the storage figures and limits). */
export function getFilesQueryOptions(folder: string) {
  return queryOptions({
    queryKey: [...FILES_QUERY_KEY, folder],
    queryFn: ({ signal }) =>
      apiRequest(`${PATHS.list}?${new URLSearchParams({ folder }).toString()}`, {
        auth: 'ring',
        schema: ZListFilesResponse,
        cache: 'no-store',
        signal,
        networkError: RING_FILES_MESSAGES.connectionError,
      }),
    // A 403 (plan without file sharing) or a 404 (folder gone) will not change by retrying.
    retry: (count, error) =>
      !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
  });
}

function post<S extends z.ZodType>(path: string, body: unknown, schema: S, fallbackError: string) {
  return apiRequest(path, {
    method: 'POST',
    auth: 'ring',
    body,
    schema,
    fallbackError,
    networkError: RING_FILES_MESSAGES.connectionError,
  });
}

export const filesApi = {
  rename: (body: TRenameFileRequest) =>
    post(PATHS.rename, body, ZRenameFileResponse, RING_FILES_MESSAGES.renameFailed),
  delete: (id: string) => post(PATHS.delete, { id }, ZDeleteFileResponse, RING_FILES_MESSAGES.deleteFailed),
  mkdir: (body: TMkdirRequest) => post(PATHS.mkdir, body, ZMkdirResponse, RING_FILES_MESSAGES.mkdirFailed),
  renameFolder: (body: TRenameFolderRequest) =>
    post(PATHS.renameFolder, body, ZRenameFolderResponse, RING_FILES_MESSAGES.folderRenameFailed),
  rmdir: (folder: string) =>
    post(PATHS.rmdir, { folder }, ZRmdirResponse, RING_FILES_MESSAGES.folderDeleteFailed),
  /** POST move.php: the file into another folder, its metadata signed again (issue 28). */
  move: (body: TMoveFileRequest) => post(PATHS.move, body, ZMoveFileResponse, RING_FILES_MESSAGES.moveFailed),
  /** GET folders.php: every folder of the Ring (the « Déplacer » dialog). */
  folders: () =>
    apiRequest(PATHS.folders, {
      auth: 'ring',
      schema: ZListFoldersResponse,
      cache: 'no-store',
      networkError: RING_FILES_MESSAGES.connectionError,
    }),
  /** GET keys.php: one page of every file's wrapped keys (owner and Ring admins). */
  fileKeys: (after: string) =>
    apiRequest(`${PATHS.keys}?${new URLSearchParams({ after }).toString()}`, {
      auth: 'ring',
      schema: ZFileKeysResponse,
      cache: 'no-store',
      networkError: RING_FILES_MESSAGES.connectionError,
    }),
  /** POST keys.php: file keys wrapped again under a later epoch key. */
  addFileKeys: (wraps: Array<{ file_id: string; file_key: TWrappedFileKey }>) =>
    post(PATHS.keys, { wraps }, ZAddFileKeysResponse, RING_FILES_MESSAGES.invalidFileKey),
};

/**
 * The headers of a Ring call made outside apiRequest (XHR, tus, streamed download): the browser
 * adds the HttpOnly session cookie, these add its CSRF token; without a Ring session, a "Non
 * authentifié" ApiError.
 */
export function ringAuthHeaders(): Record<string, string> {
  if (!hasSession('ring')) throw new ApiError(MESSAGES.notAuthenticated, 401);
  return sessionHeaders('ring');
}

/** A 401 outside apiRequest (XHR, tus, streamed download) ends the session like apiRequest does. */
export function sessionExpired(): ApiError {
  clearSession('ring');
  window.dispatchEvent(new CustomEvent(SESSION_EXPIRED_EVENT, { detail: 'ring' }));
  return new ApiError(MESSAGES.sessionExpired, 401);
}

/** The French error of a failed answer: the server's `error`, else `fallback`. */
function errorOfAnswer(status: number, text: string, fallback: string): ApiError {
  if (status === 401) return sessionExpired();
  let message = fallback;
  try {
    const json = JSON.parse(text) as { error?: unknown };
    if (typeof json.error === 'string' && json.error !== '') message = json.error;
  } catch {
    // not JSON: the fallback
  }
  return new ApiError(message, status);
}

/** What upload.php and tus need besides the bytes (every name already encrypted). */
export interface UploadFields {
  folder: string;
  name: string;
  original_name: string;
  extension: string;
  file_id: string;
  file_key: TWrappedFileKey;
  /** Sealed name, type, folder and uploader (issue 27). */
  meta: string;
}

/**
 * POST upload.php: the fields first (the server refuses a bad or oversized file before reading
 * it), then the encrypted bytes, with upload progress.
 */
export function uploadMultipart(
  fields: UploadFields,
  encrypted: Blob,
  onProgress: (sent: number, total: number) => void,
  signal?: AbortSignal,
): Promise<TRingFile> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append('folder', fields.folder);
    form.append('name', fields.name);
    form.append('original_name', fields.original_name);
    form.append('extension', fields.extension);
    form.append('file_id', fields.file_id);
    form.append('file_key', JSON.stringify(fields.file_key));
    form.append('meta', fields.meta);
    form.append('size', String(encrypted.size));
    // The part's file name says nothing about the file.
    form.append('file', encrypted, 'fichier.srf');
    const xhr = new XMLHttpRequest();
    xhr.open('POST', PATHS.upload);
    try {
      for (const [name, value] of Object.entries(ringAuthHeaders())) xhr.setRequestHeader(name, value);
    } catch (error) {
      reject(error);
      return;
    }
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded, event.total);
    };
    xhr.onerror = () => reject(new ApiError(RING_FILES_MESSAGES.connectionError, 0));
    xhr.onabort = () => reject(new DOMException('Envoi annulé', 'AbortError'));
    xhr.onload = () => {
      if (xhr.status < 200 || xhr.status >= 300) {
        reject(errorOfAnswer(xhr.status, xhr.responseText, RING_FILES_MESSAGES.uploadError));
        return;
      }
      try {
        const parsed = ZUploadFileResponse.safeParse(JSON.parse(xhr.responseText));
        if (parsed.success) resolve(parsed.data.file);
        else reject(new ApiError(RING_FILES_MESSAGES.uploadError, xhr.status, undefined, 'data'));
      } catch {
        reject(new ApiError(RING_FILES_MESSAGES.uploadError, xhr.status, undefined, 'data'));
      }
    };
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}

/**
 * GET download.php?id=: the stored (encrypted) bytes as a stream, and their size. A failure
 * becomes an ApiError with the server's French message or "Téléchargement impossible".
 */
export async function openDownload(
  id: string,
  signal?: AbortSignal,
): Promise<{ body: ReadableStream<Uint8Array>; size: number }> {
  let response: Response;
  try {
    response = await fetch(`${PATHS.download}?${new URLSearchParams({ id }).toString()}`, {
      headers: ringAuthHeaders(),
      cache: 'no-store',
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(RING_FILES_MESSAGES.connectionError, 0);
  }
  if (!response.ok || !response.body) {
    throw errorOfAnswer(
      response.status,
      await response.text().catch(() => ''),
      RING_FILES_MESSAGES.downloadError,
    );
  }
  return { body: response.body, size: Number(response.headers.get('Content-Length') ?? Number.NaN) };
}
