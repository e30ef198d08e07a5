/** The Ring security levels of the spec, weakest first. */
export const SECURITY_LEVELS = ['basic', 'standard', 'high', 'military'] as const;
export type SecurityLevel = (typeof SECURITY_LEVELS)[number];

/** Minimum length, in characters, of a new member passphrase. */
export const MIN_PASSPHRASE_LENGTH = 12;
/** PBKDF2-SHA-256 iterations of records before Argon2id (600,000): they open and are re-sealed. */
export const DEFAULT_KDF_ITERATIONS = 600_000;
/** PBKDF2 iterations of those older records in Rings at level high or military. */
export const HIGH_KDF_ITERATIONS = 1_000_000;
/** Iterations written by the oldest clients: such records still open and are re-sealed. */
export const LEGACY_KDF_ITERATIONS = 120_000;
/** Records asking for more are refused (an absurd count would freeze the browser). */
export const MAX_KDF_ITERATIONS = 10_000_000;

/** Argon2id cost of a member key record (one lane: the WebAssembly implementation is single-threaded). */
export interface Argon2idParams {
  /** Passes over memory (`t`). */
  readonly iterations: number;
  /** Memory in KiB (`m`). */
  readonly memoryKib: number;
}
/**
 * Argon2id for new member key records: 64 MiB, 2 passes, 1 lane (above OWASP's 46 MiB × 1 and
 * 19 MiB × 2). RFC 9106's 64 MiB × 3 missed the 1.5 s unlock budget in Chromium on this busy
 * 2-core machine (docs/BENCHMARKS.md); the memory, which is what makes GPU guessing dear, stays.
 */
export const DEFAULT_ARGON2ID: Argon2idParams = { iterations: 2, memoryKib: 64 * 1024 };
/** Bounds of what a record may ask for: at least 64 MiB, and nothing that would freeze a browser. */
export const MIN_ARGON2ID_MEMORY_KIB = 64 * 1024;
export const MAX_ARGON2ID_MEMORY_KIB = 1024 * 1024;
export const MAX_ARGON2ID_ITERATIONS = 16;

const DAY_MS = 86_400_000;

/** What a security level means in practice for the keys of a Ring. */
export interface LevelParameters {
  /** Size of the AES-GCM epoch key: 16 (AES-128) or 32 (AES-256) bytes. */
  readonly keyBytes: 16 | 32;
  /** A second, independent AES-256-GCM layer under a second epoch key ("double AES"). */
  readonly doubleLayer: boolean;
  /** A new epoch key is created after this many messages in the epoch... */
  readonly rotateAfterMessages: number;
  /** ...or when the epoch is this old (milliseconds), whichever comes first. */
  readonly rotateAfterMs: number;
  /** PBKDF2 iterations of member key records sealed before Argon2id (legacy, still opened). */
  readonly kdfIterations: number;
  /** Argon2id cost of new member key records (older or cheaper records are re-sealed at unlock). */
  readonly argon2id: Argon2idParams;
}

/** The spec's levels mapped to real parameters. */
export const LEVEL_PARAMETERS: Readonly<Record<SecurityLevel, LevelParameters>> = {
  basic: {
    keyBytes: 16,
    doubleLayer: false,
    rotateAfterMessages: 1_000,
    rotateAfterMs: 7 * DAY_MS,
    kdfIterations: DEFAULT_KDF_ITERATIONS,
    argon2id: DEFAULT_ARGON2ID,
  },
  standard: {
    keyBytes: 32,
    doubleLayer: false,
    rotateAfterMessages: 1_000,
    rotateAfterMs: 7 * DAY_MS,
    kdfIterations: DEFAULT_KDF_ITERATIONS,
    argon2id: DEFAULT_ARGON2ID,
  },
  high: {
    keyBytes: 32,
    doubleLayer: false,
    rotateAfterMessages: 100,
    rotateAfterMs: 7 * DAY_MS,
    kdfIterations: HIGH_KDF_ITERATIONS,
    argon2id: DEFAULT_ARGON2ID,
  },
  military: {
    keyBytes: 32,
    doubleLayer: true,
    rotateAfterMessages: 100,
    rotateAfterMs: 7 * DAY_MS,
    kdfIterations: HIGH_KDF_ITERATIONS,
    argon2id: DEFAULT_ARGON2ID,
  },
};

/** True for one of the four level names. */
export function isSecurityLevel(value: unknown): value is SecurityLevel {
  return typeof value === 'string' && (SECURITY_LEVELS as readonly string[]).includes(value);
}

/**
 * Whether the current epoch must be replaced by a new one before the next message: too many
 * messages under it, or too old, for the Ring's level. (Member removal always rotates too.)
 */
export function shouldRotateEpoch(
  level: SecurityLevel,
  epoch: { createdAt: string; messageCount: number },
  now: Date = new Date(),
): boolean {
  const { rotateAfterMessages, rotateAfterMs } = LEVEL_PARAMETERS[level];
  const age = now.getTime() - Date.parse(epoch.createdAt);
  return epoch.messageCount >= rotateAfterMessages || !(age < rotateAfterMs);
}
