/** Image formats the back office accepts for the logo and the favicon (never SVG: it can carry scripts). */
export const IMAGE_FORMATS = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  ico: 'image/x-icon',
} as const;
export type ImageExtension = keyof typeof IMAGE_FORMATS;

/** Names this module generates: `<type>-<random>.<ext>`; anything else is never served. */
export const UPLOAD_NAME_RE = /^[a-z]+-[A-Za-z0-9_-]+\.(png|jpg|gif|webp|ico)$/;

const startsWith = (buf: Buffer, bytes: number[], at = 0) =>
  buf.length >= at + bytes.length && bytes.every((b, i) => buf[at + i] === b);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/**
 * The image format of a file from its first bytes (magic numbers), whatever its name or declared
 * type says; undefined when it is not one of the accepted formats.
 */
export function detectImageFormat(buf: Buffer): ImageExtension | undefined {
  if (startsWith(buf, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(buf, [0xff, 0xd8, 0xff])) return 'jpg';
  if (startsWith(buf, ascii('GIF87a')) || startsWith(buf, ascii('GIF89a'))) return 'gif';
  if (startsWith(buf, ascii('RIFF')) && startsWith(buf, ascii('WEBP'), 8)) return 'webp';
  // ICO: reserved 0, type 1 (icon), at least one image, and a first directory entry in the file.
  if (startsWith(buf, [0x00, 0x00, 0x01, 0x00]) && buf.length >= 22) {
    const count = buf.readUInt16LE(4);
    const firstSize = buf.readUInt32LE(14);
    const firstOffset = buf.readUInt32LE(18);
    if (count > 0 && firstSize > 0 && firstOffset >= 6 + 16 * count && firstOffset < buf.length) return 'ico';
  }
  return undefined;
}

/** The Content-Type of a stored upload, from the extension this module gave it. */
export function contentTypeOf(name: string): string | undefined {
  const ext = name.slice(name.lastIndexOf('.') + 1) as ImageExtension;
  return Object.prototype.hasOwnProperty.call(IMAGE_FORMATS, ext) ? IMAGE_FORMATS[ext] : undefined;
}
