import { describe, expect, it } from 'vitest';
import { concatBytes, randomBytes } from './encoding';
import { generateEpochKey } from './epoch-keys';
import {
  FILE_CHUNK_BYTES,
  FILE_HEADER_BYTES,
  ciphertextSize,
  createFileDecryptor,
  createFileEncryptor,
  createSeekableFileEncryptor,
  decryptStream,
  encryptStream,
  generateFileKey,
  plaintextSize,
  unwrapFileKey,
  wrapFileKey,
} from './file-stream';
import { expectCode, expectThrowsCode, flipBase64, flipBit, sameBytes } from './test-support';

const C = FILE_CHUNK_BYTES;
const CC = C + 16;

/** A stream that yields `bytes` in pieces of the given sizes (cycled). */
function streamOf(bytes: Uint8Array, pieces: number[] = [bytes.length || 1]): ReadableStream<Uint8Array> {
  let offset = 0;
  let turn = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      const size = pieces[turn++ % pieces.length]!;
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) parts.push(read.value);
  return concatBytes(...parts);
}

async function encrypt(plain: Uint8Array, key: Uint8Array, pieces?: number[]) {
  return collect(encryptStream(streamOf(plain, pieces), key));
}

async function decrypt(cipher: Uint8Array, key: Uint8Array, pieces?: number[]) {
  return collect(decryptStream(streamOf(cipher, pieces), key));
}

/** Splits an SRF1 ciphertext into its header and chunks. */
function split(cipher: Uint8Array): { header: Uint8Array; chunks: Uint8Array[] } {
  const chunks: Uint8Array[] = [];
  for (let at = FILE_HEADER_BYTES; at < cipher.length; at += CC) chunks.push(cipher.slice(at, at + CC));
  return { header: cipher.slice(0, FILE_HEADER_BYTES), chunks };
}

function join(header: Uint8Array, chunks: Uint8Array[]): Uint8Array {
  return concatBytes(header, ...chunks);
}

describe('file stream encryption', () => {
  it('computes exact sizes both ways', async () => {
    const key = generateFileKey();
    for (const size of [0, 1, 100, C - 1, C, C + 1, 2 * C, 3 * C + 5]) {
      const cipher = await encrypt(randomBytes(size), key);
      expect(cipher.length).toBe(ciphertextSize(size));
      expect(plaintextSize(cipher.length)).toBe(size);
    }
    expect(ciphertextSize(0)).toBe(12 + 16);
    expect(ciphertextSize(C)).toBe(12 + C + 16);
    expect(ciphertextSize(C + 1)).toBe(12 + C + 1 + 32);
    for (const impossible of [0, 11, 12 + 15, 12 + CC + 16, 12 + 2 * CC + 5, -1, 1.5]) {
      expectThrowsCode(() => plaintextSize(impossible), 'invalid_format');
    }
    expectThrowsCode(() => ciphertextSize(-1), 'invalid_format');
  });

  it('round-trips a few MB fed in odd piece sizes, and any ciphertext chunking', async () => {
    const key = generateFileKey();
    const plain = randomBytes(3 * 1024 * 1024 + 12_345);
    const cipher = await encrypt(plain, key, [1, 7, 65_537, 1000, 131_071, 3]);
    expect(cipher.length).toBe(ciphertextSize(plain.length));
    expect(sameBytes(await decrypt(cipher, key, [5, 65_551, 9, 200_000, 1]), plain)).toBe(true);
    expect(sameBytes(await decrypt(cipher, key), plain)).toBe(true);
  });

  it('round-trips the edge sizes, including the empty file', async () => {
    const key = generateFileKey();
    for (const size of [0, 1, C - 1, C, C + 1, 2 * C]) {
      const plain = randomBytes(size);
      expect(sameBytes(await decrypt(await encrypt(plain, key, [999]), key, [4096]), plain)).toBe(true);
    }
  });

  it('rejects every alteration of the chunks', async () => {
    const key = generateFileKey();
    const cipher = await encrypt(randomBytes(3 * C + 100), key);
    const { header, chunks } = split(cipher);
    expect(chunks.map((c) => c.length)).toEqual([CC, CC, CC, 116]);
    const [c0, c1, c2, c3] = chunks as [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
    const altered: [string, Uint8Array][] = [
      ['flip in a chunk', join(header, [c0, flipBit(c1, 500), c2, c3])],
      ['flip in a tag', join(header, [c0, c1, c2, flipBit(c3, -1)])],
      ['flip in the nonce prefix', join(flipBit(header, 8), chunks)],
      ['drop the last chunk', join(header, [c0, c1, c2])],
      ['truncate inside the last chunk', cipher.slice(0, cipher.length - 1)],
      ['truncate inside a middle chunk', cipher.slice(0, FILE_HEADER_BYTES + CC + 100)],
      ['reorder', join(header, [c1, c0, c2, c3])],
      ['duplicate', join(header, [c0, c0, c1, c2, c3])],
      ['append bytes', concatBytes(cipher, new Uint8Array([0]))],
      ['append a chunk', join(header, [c0, c1, c2, c3, c3])],
      ['header only', header],
      ['nothing', new Uint8Array(0)],
      ['half a header', header.slice(0, 6)],
    ];
    for (const [what, bytes] of altered) {
      await expect(decrypt(bytes, key), what).rejects.toMatchObject({ code: 'unverifiable' });
    }
    await expectCode(decrypt(join(flipBit(header, 0), chunks), key), 'invalid_format');
    await expectCode(decrypt(cipher, generateFileKey()), 'unverifiable');
  });

  it('rejects a chunk swapped in from another file', async () => {
    const keyA = generateFileKey();
    const keyB = generateFileKey();
    const a = split(await encrypt(randomBytes(2 * C + 1), keyA));
    const b = split(await encrypt(randomBytes(2 * C + 1), keyB));
    await expectCode(
      decrypt(join(a.header, [a.chunks[0]!, b.chunks[1]!, a.chunks[2]!]), keyA),
      'unverifiable',
    );
    // Same key (a re-upload): the random nonce prefix still separates the two files.
    const c = split(await encrypt(randomBytes(2 * C + 1), keyA));
    await expectCode(
      decrypt(join(a.header, [a.chunks[0]!, c.chunks[1]!, a.chunks[2]!]), keyA),
      'unverifiable',
    );
  });

  it('chunk API enforces sizes, order and a final chunk', async () => {
    const key = generateFileKey();
    const encryptor = await createFileEncryptor(key);
    await expectCode(encryptor.encryptChunk(new Uint8Array(C - 1), false), 'invalid_format');
    const first = await encryptor.encryptChunk(new Uint8Array(C), false);
    await expectCode(encryptor.encryptChunk(new Uint8Array(0), true), 'invalid_format');
    const last = await encryptor.encryptChunk(new Uint8Array(10), true);
    await expectCode(encryptor.encryptChunk(new Uint8Array(10), true), 'invalid_format');

    const complete = await createFileDecryptor(key, encryptor.header);
    expect(await complete.decryptChunk(first, false)).toHaveLength(C);
    expect(() => complete.finish()).toThrow();
    expect(await complete.decryptChunk(last, true)).toHaveLength(10);
    expect(() => complete.finish()).not.toThrow();
    await expectCode(complete.decryptChunk(last, true), 'unverifiable');

    const markedLastTooEarly = await createFileDecryptor(key, encryptor.header);
    await expectCode(markedLastTooEarly.decryptChunk(first, true), 'unverifiable');
    const lastNotMarked = await createFileDecryptor(key, encryptor.header);
    await lastNotMarked.decryptChunk(first, false);
    await expectCode(lastNotMarked.decryptChunk(last, false), 'unverifiable');
    await expectCode(createFileDecryptor(key, encryptor.header.slice(1)), 'invalid_format');
    await expectCode(createFileEncryptor(new Uint8Array(16)), 'invalid_format');
  });

  it('seekable encryption gives a decryptable SRF1 file, the same bytes for a chunk asked twice, in any order', async () => {
    for (const size of [0, 1, C - 1, C, C + 1, 3 * C + 17]) {
      const key = generateFileKey();
      const plain = randomBytes(size);
      const encryptor = await createSeekableFileEncryptor(key, size);
      expect(encryptor.chunkCount).toBe(Math.max(1, Math.ceil(size / C)));
      const chunkOf = (i: number) => plain.slice(i * C, Math.min(size, (i + 1) * C));
      // Backwards, as a resumed upload may ask, then each chunk again.
      const sealed: Uint8Array[] = [];
      for (let i = encryptor.chunkCount - 1; i >= 0; i--)
        sealed[i] = await encryptor.encryptChunkAt(i, chunkOf(i));
      for (let i = 0; i < encryptor.chunkCount; i++)
        expect(sameBytes(await encryptor.encryptChunkAt(i, chunkOf(i)), sealed[i]!)).toBe(true);
      const cipher = join(encryptor.header, sealed);
      expect(cipher.length).toBe(ciphertextSize(size));
      expect(sameBytes(await decrypt(cipher, key, [4096, 70_000]), plain)).toBe(true);
    }
  });

  it('seekable encryption refuses indexes out of range and chunks of the wrong size', async () => {
    const encryptor = await createSeekableFileEncryptor(generateFileKey(), 2 * C + 5);
    await expectCode(encryptor.encryptChunkAt(-1, new Uint8Array(C)), 'invalid_format');
    await expectCode(encryptor.encryptChunkAt(3, new Uint8Array(5)), 'invalid_format');
    await expectCode(encryptor.encryptChunkAt(0.5, new Uint8Array(C)), 'invalid_format');
    await expectCode(encryptor.encryptChunkAt(0, new Uint8Array(C - 1)), 'invalid_format');
    await expectCode(encryptor.encryptChunkAt(2, new Uint8Array(C)), 'invalid_format');
    expect(await encryptor.encryptChunkAt(2, new Uint8Array(5))).toHaveLength(5 + 16);
    await expectCode(createSeekableFileEncryptor(generateFileKey(), -1), 'invalid_format');
  });

  it('wraps file keys under the epoch key, bound to Ring, file and epoch', async () => {
    const epoch1 = await generateEpochKey({ ringId: 'ring-1', epoch: 1, level: 'basic' });
    const epoch2 = await generateEpochKey({ ringId: 'ring-1', epoch: 2, level: 'military' });
    const otherRing = await generateEpochKey({ ringId: 'ring-2', epoch: 1, level: 'basic' });
    const fileKey = generateFileKey();
    const target = { ringId: 'ring-1', fileId: 'file-1' };
    const wrapped = await wrapFileKey(fileKey, epoch1, target);
    expect(wrapped).toMatchObject({ v: 1, epoch: 1 });
    expect(await unwrapFileKey(wrapped, epoch1, target)).toEqual(fileKey);
    await expectCode(unwrapFileKey(wrapped, epoch1, { ...target, fileId: 'file-2' }), 'unverifiable');
    await expectCode(unwrapFileKey(wrapped, epoch2, target), 'unverifiable');
    await expectCode(unwrapFileKey({ ...wrapped, epoch: 2 }, epoch2, target), 'unverifiable');
    await expectCode(unwrapFileKey(wrapped, otherRing, { ...target, ringId: 'ring-2' }), 'unverifiable');
    await expectCode(
      unwrapFileKey({ ...wrapped, iv: flipBase64(wrapped.iv, 2) }, epoch1, target),
      'unverifiable',
    );
    await expectCode(
      unwrapFileKey({ ...wrapped, ct: flipBase64(wrapped.ct, 40) }, epoch1, target),
      'unverifiable',
    );
    await expectCode(
      unwrapFileKey({ ...wrapped, extra: 1 } as typeof wrapped, epoch1, target),
      'invalid_format',
    );
    await expectCode(wrapFileKey(fileKey, otherRing, target), 'invalid_format');
    expect(await unwrapFileKey(await wrapFileKey(fileKey, epoch2, target), epoch2, target)).toEqual(fileKey);
  });
});
