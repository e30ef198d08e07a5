import { type Bytes, randomBytes } from './encoding';

/** Random bytes of a recovery key: 160 bits, written as 32 Crockford base32 characters. */
export const RECOVERY_KEY_BYTES = 20;
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const GROUP = 4;

/**
 * A new recovery key (« Clé de secours »): 160 random bits in Crockford base32, in eight groups of
 * four characters (`7K2M-…`), easy to print, copy and type back.
 */
export function generateRecoveryKey(): string {
  const bytes = randomBytes(RECOVERY_KEY_BYTES);
  try {
    return formatRecoveryKey(bytes);
  } finally {
    bytes.fill(0);
  }
}

/** The key's bytes in groups of four base32 characters separated by hyphens. */
export function formatRecoveryKey(bytes: Bytes): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out.match(new RegExp(`.{1,${GROUP}}`, 'g'))!.join('-');
}

/**
 * The bytes of a typed recovery key, or undefined when it is not one: case, spaces and hyphens are
 * ignored, and O, I and L read as 0, 1 and 1 (Crockford), so a key copied by hand still reads.
 */
export function parseRecoveryKey(text: string): Bytes | undefined {
  const clean = text.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  if (clean.length !== Math.ceil((RECOVERY_KEY_BYTES * 8) / 5)) return undefined;
  const out = new Uint8Array(RECOVERY_KEY_BYTES);
  let bits = 0;
  let value = 0;
  let index = 0;
  for (const char of clean) {
    const digit = ALPHABET.indexOf(char);
    if (digit < 0) return undefined;
    value = (value << 5) | digit;
    bits += 5;
    if (bits >= 8) {
      out[index++] = (value >>> (bits - 8)) & 0xff;
      bits -= 8;
      value &= (1 << bits) - 1;
    }
  }
  return index === RECOVERY_KEY_BYTES ? out : undefined;
}
