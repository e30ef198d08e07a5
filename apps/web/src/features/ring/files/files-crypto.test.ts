import { encryptedFileSize } from '@securering/contract';
import { decryptStream, generateEpochKey, generateFileKey, randomBytes, wrapFileKey } from '@securering/e2ee';
import { describe, expect, it } from 'vitest';
import {
  EncryptedFile,
  encryptFileNames,
  newFileKey,
  openFileKey,
  readFileName,
  readName,
} from './files-crypto';

const RING = 'ring-1';
const C = 65_536;

async function decrypt(cipher: Uint8Array, key: Uint8Array): Promise<Uint8Array> {
  const plain = await new Response(
    decryptStream(new Blob([cipher as Uint8Array<ArrayBuffer>]).stream(), key),
  ).arrayBuffer();
  return new Uint8Array(plain);
}

const bytesOf = async (blob: Blob) => new Uint8Array(await blob.arrayBuffer());
/** Byte equality without a deep comparison of every element (slow on large arrays). */
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

describe('encrypted names', () => {
  it('encrypts name, original name and extension; the browser reads them back, "" for no extension', async () => {
    const key = await generateEpochKey({ ringId: RING, epoch: 1, level: 'standard' });
    const fields = encryptFileNames(key.namesKey, RING, 'Compte rendu.PDF');
    expect(fields.name).not.toContain('Compte');
    expect(readName(key.namesKey, RING, fields.name)).toBe('Compte rendu.PDF');
    expect(readName(key.namesKey, RING, fields.extension)).toBe('pdf');
    expect(encryptFileNames(key.namesKey, RING, 'LISEZMOI').extension).toBe('');
    const file = { original_name: fields.original_name, name: fields.name };
    expect(readFileName(key.namesKey, RING, file as never)).toBe('Compte rendu.PDF');
  });

  it('gives undefined (shown "Nom illisible") for a name of another Ring, another key or garbage', async () => {
    const key = await generateEpochKey({ ringId: RING, epoch: 1, level: 'standard' });
    const other = await generateEpochKey({ ringId: RING, epoch: 1, level: 'standard' });
    const sealed = encryptFileNames(key.namesKey, RING, 'secret.txt').name;
    expect(readName(other.namesKey, RING, sealed)).toBeUndefined();
    expect(readName(key.namesKey, 'ring-2', sealed)).toBeUndefined();
    expect(readName(key.namesKey, RING, 'pas-un-nom-chiffre-du-tout')).toBeUndefined();
  });
});

describe('file keys', () => {
  it('wraps a new key under the epoch key for this file id, and unwraps it only with that epoch held', async () => {
    const epoch = await generateEpochKey({ ringId: RING, epoch: 3, level: 'standard' });
    const { fileId, fileKey, wrapped } = await newFileKey(epoch, RING);
    expect(fileId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(wrapped.epoch).toBe(3);
    const file = { id: fileId, file_key: wrapped };
    expect(await openFileKey(file, RING, (n) => (n === 3 ? epoch : undefined))).toEqual(fileKey);
    expect(await openFileKey(file, RING, () => undefined)).toBeUndefined();
    expect(await openFileKey({ id: fileId, file_key: null }, RING, () => epoch)).toBeUndefined();
    // A member admitted later holds only a later epoch: the file key wrapped again for it opens.
    const later = await generateEpochKey({ ringId: RING, epoch: 5, level: 'standard' });
    const rewrapped = await wrapFileKey(fileKey, later, { ringId: RING, fileId });
    expect(
      await openFileKey({ ...file, key_wraps: [rewrapped] }, RING, (n) => (n === 5 ? later : undefined)),
    ).toEqual(fileKey);
    // Bound to the file id: the same wrapped key under another id does not open.
    await expect(openFileKey({ ...file, id: crypto.randomUUID() }, RING, () => epoch)).rejects.toThrow();
  });
});

describe('EncryptedFile (the ciphertext a resumable upload reads part by part)', () => {
  it('has the exact encrypted size, decrypts to the file, and any byte range is the same bytes each time', async () => {
    for (const size of [0, 5, C, 3 * C + 123]) {
      const plain = randomBytes(size);
      const key = generateFileKey();
      const encrypted = await EncryptedFile.open(new Blob([plain as Uint8Array<ArrayBuffer>]), key);
      expect(encrypted.size).toBe(encryptedFileSize(size));
      const whole = await bytesOf(await encrypted.slice(0, encrypted.size));
      expect(whole.length).toBe(encrypted.size);
      expect(same(await decrypt(whole, key), plain)).toBe(true);

      // Parts cut at odd places (inside the header, inside chunks, across chunk borders), read
      // twice and in reverse, put back together give the same ciphertext.
      const cuts = [0, 3, 12, 13, C + 7, C + 12 + 16, 2 * C + 40, encrypted.size]
        .filter((n) => n <= encrypted.size)
        .sort((a, b) => a - b);
      const parts: Uint8Array[] = [];
      for (let i = cuts.length - 2; i >= 0; i--)
        parts[i] = await bytesOf(await encrypted.slice(cuts[i]!, cuts[i + 1]!));
      const again = await bytesOf(await encrypted.slice(cuts[1]!, cuts[2]!));
      expect(same(again, parts[1] ?? new Uint8Array(0))).toBe(true);
      const joined = new Uint8Array(await new Blob(parts as Uint8Array<ArrayBuffer>[]).arrayBuffer());
      expect(same(joined, whole)).toBe(true);
    }
  });

  it('clamps a range past the end and gives nothing for an empty range', async () => {
    const encrypted = await EncryptedFile.open(new Blob([new Uint8Array(10)]), generateFileKey());
    expect((await encrypted.slice(20, 10_000)).size).toBe(encrypted.size - 20);
    expect((await encrypted.slice(5, 5)).size).toBe(0);
    expect((await encrypted.slice(encrypted.size, encrypted.size + 10)).size).toBe(0);
  });

  it('uses a fresh nonce prefix per file: the same content under the same key encrypts differently', async () => {
    const key = generateFileKey();
    const content = new Blob([new Uint8Array(100)]);
    const a = await bytesOf(await (await EncryptedFile.open(content, key)).slice(0, 1000));
    const b = await bytesOf(await (await EncryptedFile.open(content, key)).slice(0, 1000));
    expect(same(a, b)).toBe(false);
  });
});
