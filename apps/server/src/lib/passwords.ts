import { hash, verify } from '@node-rs/argon2';

/** OWASP argon2id parameters: 19 MiB memory, 2 iterations, 1 lane. Hashing runs off the event loop. */
// algorithm 2 is Argon2id (the package exports it as an ambient const enum, unusable with isolated modules).
const OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

// Verifying against this keeps the timing of "unknown account" close to "wrong password".
let dummyHash: Promise<string> | undefined;
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummyHash ??= hashPassword('dummy-password-for-timing');
  await verifyPassword(await dummyHash, password);
  return false;
}
