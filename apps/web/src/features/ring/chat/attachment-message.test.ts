import {
  bindContent,
  contentBinding,
  decryptStream,
  generateFileKey,
  MAX_MESSAGE_BYTES,
} from '@securering/e2ee';
import { describe, expect, it } from 'vitest';
import { neutralizeTypedText } from '../calls/call-notice';
import { EncryptedFile } from '../files/files-crypto';
import {
  THUMBNAIL_MAX_BYTES,
  THUMBNAIL_MAX_SIDE,
  attachmentKey,
  encodeAttachment,
  encodeKey,
  fitThumbnail,
  parseAttachment,
  thumbnailBytes,
  thumbnailOf,
  thumbnailSize,
  type ThumbnailEncoder,
} from './attachment-message';
import { attachmentSummary, isAttachmentText } from './attachment-prefix';
import { noticeBody } from './chat-policy';

const FILE_ID = 'f47ac10b-58cc-4372-a567-0e02b2c3d479';
const FOLDER_ID = '0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d';

async function encrypted(plain: Uint8Array) {
  const fileKey = generateFileKey();
  const file = await EncryptedFile.open(new Blob([plain as Uint8Array<ArrayBuffer>]), fileKey);
  const cipher = new Uint8Array(await (await file.slice(0, file.size)).arrayBuffer());
  return { fileKey, cipher, content: contentBinding(file.header, file.size) };
}

const read = async (stream: ReadableStream<Uint8Array>) =>
  new Uint8Array(await new Response(stream).arrayBuffer());
const streamOf = (bytes: Uint8Array) => new Blob([bytes as Uint8Array<ArrayBuffer>]).stream();

/** An encoder that answers each (type, quality) with a blob of the size `sizeOf` says. */
const fakeEncoder =
  (
    sizeOf: (type: string, quality: number) => number | null,
    produced = (type: string) => type,
  ): ThumbnailEncoder =>
  (type, quality) => {
    const size = sizeOf(type, quality);
    return Promise.resolve(size === null ? null : new Blob([new Uint8Array(size)], { type: produced(type) }));
  };

describe('attachment messages (issue 29)', () => {
  it('carry what reads the file: the key and the content binding decrypt the stored bytes', async () => {
    const plain = new TextEncoder().encode('Compte rendu de la réunion\n'.repeat(500));
    const { fileKey, cipher, content } = await encrypted(plain);
    const text = encodeAttachment({
      fileId: FILE_ID,
      folderId: FOLDER_ID,
      name: 'compte-rendu.txt',
      size: plain.length,
      type: 'text/plain',
      key: encodeKey(fileKey),
      content,
    });
    expect(isAttachmentText(text)).toBe(true);
    const parsed = parseAttachment(text);
    expect(parsed).toMatchObject({ v: 1, fileId: FILE_ID, name: 'compte-rendu.txt', size: plain.length });
    expect(parsed?.thumb).toBeUndefined();
    const opened = await read(
      decryptStream(bindContent(streamOf(cipher), parsed!.content), attachmentKey(parsed!)),
    );
    expect(opened).toEqual(plain);

    // Bytes of another encryption than the one the message names are refused.
    const other = await encrypted(plain);
    await expect(
      read(decryptStream(bindContent(streamOf(other.cipher), parsed!.content), attachmentKey(parsed!))),
    ).rejects.toThrow();
  });

  it('refuse malformed bodies, and typed text never passes for one', async () => {
    const { fileKey, content } = await encrypted(new Uint8Array(10));
    const good = {
      fileId: FILE_ID,
      folderId: FOLDER_ID,
      name: 'a.bin',
      size: 10,
      type: '',
      key: encodeKey(fileKey),
      content,
    };
    expect(parseAttachment(encodeAttachment(good))).not.toBeNull();
    for (const bad of [
      { ...good, fileId: '../../etc/passwd' },
      { ...good, key: 'short' },
      { ...good, name: '' },
      { ...good, size: -1 },
      { ...good, type: 'text/plain\u0000' },
      { ...good, content: { header: 'x', size: 40 } },
      { ...good, thumb: { type: 'image/svg+xml', width: 10, height: 10, data: 'AAAA' } },
      { ...good, thumb: { type: 'image/webp', width: 400, height: 10, data: 'AAAA' } },
    ])
      expect(parseAttachment(encodeAttachment(bad as Parameters<typeof encodeAttachment>[0]))).toBeNull();
    expect(parseAttachment('\u0001file\u0001{not json')).toBeNull();
    expect(parseAttachment('bonjour')).toBeNull();
    const forged = encodeAttachment(good);
    expect(parseAttachment(neutralizeTypedText(forged))).toBeNull();
    expect(isAttachmentText(neutralizeTypedText(forged))).toBe(false);
  });

  it('show as « Pièce jointe : nom » in notices, never as their JSON', async () => {
    const { fileKey, content } = await encrypted(new Uint8Array(3));
    const text = encodeAttachment({
      fileId: FILE_ID,
      folderId: FOLDER_ID,
      name: 'photo.png',
      size: 3,
      type: 'image/png',
      key: encodeKey(fileKey),
      content,
    });
    expect(attachmentSummary(text)).toBe('Pièce jointe\u202f: photo.png');
    expect(noticeBody(text, false)).toBe('Pièce jointe\u202f: photo.png');
    expect(noticeBody(text, false)).not.toContain(encodeKey(fileKey));
    expect(attachmentSummary('bonjour')).toBeNull();
  });
});

describe('attachment thumbnails', () => {
  it('fit 320 px on the longest side, never enlarged', () => {
    expect(thumbnailSize(4000, 3000)).toEqual({ width: THUMBNAIL_MAX_SIDE, height: 240 });
    expect(thumbnailSize(1000, 4000)).toEqual({ width: 80, height: THUMBNAIL_MAX_SIDE });
    expect(thumbnailSize(100, 50)).toEqual({ width: 100, height: 50 });
    expect(thumbnailSize(10_000, 1)).toEqual({ width: THUMBNAIL_MAX_SIDE, height: 1 });
  });

  it('take the best quality within 24 KB, WebP first then JPEG, or none', async () => {
    // WebP fits at the third quality tried.
    const sizes = new Map([
      [0.8, 60_000],
      [0.65, 30_000],
      [0.5, 20_000],
    ]);
    const webp = await fitThumbnail(
      fakeEncoder((type, q) => (type === 'image/webp' ? (sizes.get(q) ?? 9_000) : 1)),
    );
    expect(webp?.type).toBe('image/webp');
    expect(webp?.bytes.length).toBe(20_000);

    // A browser without WebP encoding answers PNG: JPEG is used.
    const jpeg = await fitThumbnail(
      fakeEncoder(
        () => 10_000,
        (type) => (type === 'image/webp' ? 'image/png' : type),
      ),
    );
    expect(jpeg?.type).toBe('image/jpeg');

    // Nothing small enough: no preview rather than an oversized one.
    expect(await fitThumbnail(fakeEncoder(() => THUMBNAIL_MAX_BYTES + 1))).toBeNull();
  });

  it('the largest thumbnail still fits a message, and a larger one is refused', async () => {
    const { fileKey, content } = await encrypted(new Uint8Array(5));
    const base = {
      fileId: FILE_ID,
      folderId: FOLDER_ID,
      name: `${'n'.repeat(250)}.jpg`,
      size: 5,
      type: 'image/jpeg',
      key: encodeKey(fileKey),
      content,
    };
    const fitted = { type: 'image/jpeg' as const, bytes: new Uint8Array(THUMBNAIL_MAX_BYTES).fill(7) };
    const thumb = thumbnailOf(fitted, { width: 320, height: 240 });
    const text = encodeAttachment({ ...base, thumb });
    expect(new TextEncoder().encode(text).length).toBeLessThan(MAX_MESSAGE_BYTES);
    const parsed = parseAttachment(text);
    expect(parsed?.thumb && thumbnailBytes(parsed.thumb)).toEqual(fitted.bytes);

    const tooBig = thumbnailOf(
      { ...fitted, bytes: new Uint8Array(THUMBNAIL_MAX_BYTES + 3) },
      { width: 320, height: 240 },
    );
    expect(parseAttachment(encodeAttachment({ ...base, thumb: tooBig }))).toBeNull();
  });
});
