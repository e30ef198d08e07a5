import {
  FILE_KEY_BYTES,
  MAX_MESSAGE_BYTES,
  fromBase64,
  fromBase64Url,
  toBase64,
  toBase64Url,
} from '@securering/e2ee';
import { ATTACHMENT_PREFIX } from './attachment-prefix';

/**
 * A file put in a conversation (issue 29). The file itself goes to the Ring's file space, in the
 * folder « Pièces jointes », encrypted exactly like any upload there (a random key per file, SRF1
 * stream, signed metadata: files/uploads.ts); the conversation gets one ordinary encrypted, signed
 * message whose plaintext is the reserved prefix and the JSON below. It carries what a reader
 * needs to show and open the file without trusting the server: its name, size and type, the file
 * key itself, the SRF1 header and stored size the downloaded bytes must match (a swapped or
 * truncated file is refused), and for an image a small thumbnail (WebP or JPEG, 320 px at most,
 * ≤ 24 KB) inside the message — encrypted with it, never stored in clear anywhere.
 */

/** Longest side of a thumbnail, in pixels. */
export const THUMBNAIL_MAX_SIDE = 320;
/** Largest thumbnail, in bytes (before base64): keeps the message far below MAX_MESSAGE_BYTES. */
export const THUMBNAIL_MAX_BYTES = 24 * 1024;
/** Longest body accepted (the envelope's limit). */
const MAX_TEXT = MAX_MESSAGE_BYTES;
const THUMB_TYPES = ['image/webp', 'image/jpeg'] as const;
type ThumbType = (typeof THUMB_TYPES)[number];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** SRF1 header: 12 bytes, base64url. */
const HEADER = /^[A-Za-z0-9_-]{16}$/;
/** The file key: FILE_KEY_BYTES, base64url. */
const KEY = new RegExp(`^[A-Za-z0-9_-]{${Math.ceil((FILE_KEY_BYTES * 4) / 3)}}$`);

export interface AttachmentThumbnail {
  type: ThumbType;
  width: number;
  height: number;
  /** The image bytes, base64. */
  data: string;
}

export interface Attachment {
  v: 1;
  /** The file's id in the file space. */
  fileId: string;
  /** Its id of the folder « Pièces jointes » it was put in. */
  folderId: string;
  name: string;
  /** Plain size in bytes. */
  size: number;
  /** Media type as the browser gave it ('' when unknown). */
  type: string;
  /** The raw file key, base64url (the message is end-to-end encrypted). */
  key: string;
  /** What the stored bytes must be: the SRF1 header (base64url) and the stored size. */
  content: { header: string; size: number };
  thumb?: AttachmentThumbnail;
}

/** The plaintext of an attachment message. */
export function encodeAttachment(attachment: Omit<Attachment, 'v'>): string {
  const body: Attachment = { v: 1, ...attachment };
  const text = ATTACHMENT_PREFIX + JSON.stringify(body);
  if (new TextEncoder().encode(text).length > MAX_TEXT) throw new Error('attachment message too large');
  return text;
}

const isSize = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

function parseThumb(value: unknown): AttachmentThumbnail | null | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null) return null;
  const t = value as Record<string, unknown>;
  if (
    !THUMB_TYPES.includes(t.type as ThumbType) ||
    !isSize(t.width) ||
    !isSize(t.height) ||
    t.width === 0 ||
    t.height === 0 ||
    t.width > THUMBNAIL_MAX_SIDE ||
    t.height > THUMBNAIL_MAX_SIDE ||
    typeof t.data !== 'string' ||
    t.data.length > Math.ceil(THUMBNAIL_MAX_BYTES / 3) * 4 ||
    !/^[A-Za-z0-9+/]+={0,2}$/.test(t.data)
  )
    return null;
  return { type: t.type as ThumbType, width: t.width, height: t.height, data: t.data };
}

/** The attachment a decrypted text holds, or null for another message (or a malformed entry). */
export function parseAttachment(text: string): Attachment | null {
  if (!text.startsWith(ATTACHMENT_PREFIX) || text.length > MAX_TEXT) return null;
  let body: unknown;
  try {
    body = JSON.parse(text.slice(ATTACHMENT_PREFIX.length));
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null) return null;
  const b = body as Record<string, unknown>;
  const content = b.content as Record<string, unknown> | null | undefined;
  const thumb = parseThumb(b.thumb);
  if (
    b.v !== 1 ||
    typeof b.fileId !== 'string' ||
    !UUID.test(b.fileId) ||
    typeof b.folderId !== 'string' ||
    b.folderId.length > 100 ||
    typeof b.name !== 'string' ||
    b.name.trim() === '' ||
    b.name.length > 255 ||
    !isSize(b.size) ||
    typeof b.type !== 'string' ||
    !/^[\x20-\x7e]{0,255}$/.test(b.type) ||
    typeof b.key !== 'string' ||
    !KEY.test(b.key) ||
    typeof content !== 'object' ||
    content === null ||
    typeof content.header !== 'string' ||
    !HEADER.test(content.header) ||
    !isSize(content.size) ||
    content.size < 12 ||
    thumb === null
  )
    return null;
  return {
    v: 1,
    fileId: b.fileId,
    folderId: b.folderId,
    name: b.name,
    size: b.size,
    type: b.type,
    key: b.key,
    content: { header: content.header, size: content.size },
    ...(thumb ? { thumb } : {}),
  };
}

/** The file key of an attachment, as bytes. */
export function attachmentKey(attachment: Attachment): Uint8Array {
  return fromBase64Url(attachment.key);
}

/** A file key as the message carries it. */
export function encodeKey(key: Uint8Array): string {
  return toBase64Url(key);
}

/** The thumbnail's bytes (to show as an image). */
export function thumbnailBytes(thumb: AttachmentThumbnail): Uint8Array {
  return fromBase64(thumb.data);
}

/** A thumbnail's size: the longest side brought down to THUMBNAIL_MAX_SIDE, never enlarged. */
export function thumbnailSize(width: number, height: number, max = THUMBNAIL_MAX_SIDE) {
  const scale = Math.min(1, max / Math.max(width, height, 1));
  return {
    width: Math.max(1, Math.round(width * scale)),
    height: Math.max(1, Math.round(height * scale)),
  };
}

/** Encodes a canvas (or anything) at a quality, in a type; null when the browser cannot. */
export type ThumbnailEncoder = (type: ThumbType, quality: number) => Promise<Blob | null>;

const QUALITIES = [0.8, 0.65, 0.5, 0.35, 0.2];

/**
 * The first encoding at most `maxBytes` long: WebP at falling qualities, then JPEG; null when none
 * fits (the attachment then goes without a preview).
 */
export async function fitThumbnail(
  encode: ThumbnailEncoder,
  maxBytes = THUMBNAIL_MAX_BYTES,
): Promise<{ type: ThumbType; bytes: Uint8Array } | null> {
  for (const type of THUMB_TYPES) {
    for (const quality of QUALITIES) {
      const blob = await encode(type, quality);
      // A browser without WebP encoding gives PNG instead: try the next type.
      if (!blob || blob.type !== type) break;
      if (blob.size <= maxBytes) return { type, bytes: new Uint8Array(await blob.arrayBuffer()) };
    }
  }
  return null;
}

/** The thumbnail field of a message from what fitThumbnail gave. */
export function thumbnailOf(
  fitted: { type: ThumbType; bytes: Uint8Array },
  size: { width: number; height: number },
): AttachmentThumbnail {
  return { type: fitted.type, width: size.width, height: size.height, data: toBase64(fitted.bytes) };
}
