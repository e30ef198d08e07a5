import { randomFillSync } from 'node:crypto';

/**
 * Random bytes drawn from the system's CSPRNG a pool at a time: one call for 409 ids instead of one
 * per id (issue 30: a message's send makes an id, and randomBytes' call cost more than its bytes).
 * Each byte of the pool is used once, then the whole pool is filled again; as random as
 * randomBytes (Node's randomUUID pools the same way).
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;

/** Where `count` fresh random bytes start in the pool (filled again when too few are left). */
function takeRandom(count: number): number {
  if (poolOffset + count > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const start = poolOffset;
  poolOffset += count;
  return start;
}

/** Random bytes an id takes: 2 seed the millisecond's counter, 8 are its random tail. */
const RANDOM_BYTES_PER_ID = 10;

/** An id's 16 bytes while it is written (a fresh string is made of them each time). */
const bytes = Buffer.alloc(16);

let lastMs = 0;
let sequence = 0;

/**
 * A UUIDv7: 48-bit millisecond timestamp then random bits. Ids sort by creation time, which keeps
 * B-tree inserts local and gives a stable tie-break when ordering by created_at.
 */
export function newId(now: number = Date.now()): string {
  const random = takeRandom(RANDOM_BYTES_PER_ID);
  // Within one millisecond, bump a counter in the random part so ids created together still sort.
  if (now === lastMs) sequence = (sequence + 1) & 0xfff;
  else {
    lastMs = now;
    sequence = pool.readUInt16BE(random) & 0x7ff;
  }
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | ((sequence >> 8) & 0x0f);
  bytes[7] = sequence & 0xff;
  pool.copy(bytes, 8, random + 2, random + RANDOM_BYTES_PER_ID);
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
