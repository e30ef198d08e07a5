import { idbRequest, openIndexedDb } from '@/lib/indexed-db';
import type { LogCheckpoint } from './keyring-policy';

/**
 * What this browser remembers, per Ring and member, to check the server instead of believing it:
 * - the head of the Ring's membership log it verified, so a server that later serves another
 *   history — a different genesis, a rewritten or shortened log — is caught (keyring-policy
 *   `checkAgainstCheckpoint`);
 * - the members this person marked « Vérifié » after comparing safety numbers, with the keys they
 *   compared: if the log later names other keys for one of them, sending to it stops until the
 *   person compares again (keyring-policy `verificationOf`).
 */
export interface LocalTrustStore {
  getCheckpoint(ringId: string, memberId: string): Promise<LogCheckpoint | undefined>;
  putCheckpoint(memberId: string, checkpoint: LogCheckpoint): Promise<void>;
  /** Verified members: member id → the keys compared (keyring `fingerprintId`). */
  getVerified(ringId: string, memberId: string): Promise<Record<string, string>>;
  putVerified(ringId: string, memberId: string, verified: Record<string, string>): Promise<void>;
}

const DB_NAME = 'securering-e2ee';
const DB_VERSION = 3;
const CHECKPOINTS = 'log-checkpoints';
const VERIFIED = 'verified-members';
/** Trust-on-first-use keys of version 1, replaced by the signed membership log. */
const OLD_STORE = 'seen-keys';

interface StoredCheckpoint extends LogCheckpoint {
  memberId: string;
}

interface StoredVerified {
  ringId: string;
  memberId: string;
  verified: Record<string, string>;
}

/** An in-memory store: tests, and browsers where IndexedDB is unavailable (then per tab only). */
export function memoryLocalTrustStore(): LocalTrustStore {
  const checkpoints = new Map<string, LogCheckpoint>();
  const verified = new Map<string, Record<string, string>>();
  return {
    getCheckpoint: (ringId, memberId) => Promise.resolve(checkpoints.get(`${ringId}:${memberId}`)),
    putCheckpoint: (memberId, checkpoint) => {
      checkpoints.set(`${checkpoint.ringId}:${memberId}`, checkpoint);
      return Promise.resolve();
    },
    getVerified: (ringId, memberId) => Promise.resolve({ ...verified.get(`${ringId}:${memberId}`) }),
    putVerified: (ringId, memberId, marks) => {
      verified.set(`${ringId}:${memberId}`, { ...marks });
      return Promise.resolve();
    },
  };
}

function openDatabase(): Promise<IDBDatabase> {
  return openIndexedDb(DB_NAME, DB_VERSION, (db) => {
    if (db.objectStoreNames.contains(OLD_STORE)) db.deleteObjectStore(OLD_STORE);
    for (const name of [CHECKPOINTS, VERIFIED])
      if (!db.objectStoreNames.contains(name))
        db.createObjectStore(name, { keyPath: ['ringId', 'memberId'] });
  });
}

/**
 * The browser's IndexedDB store (database "securering-e2ee", stores "log-checkpoints" and
 * "verified-members"); falls back to memory when IndexedDB cannot be opened (some private modes),
 * which limits both to this tab's lifetime.
 */
export function browserLocalTrustStore(): LocalTrustStore {
  let database: Promise<IDBDatabase | null> | null = null;
  const memory = memoryLocalTrustStore();
  const db = () =>
    (database ??=
      typeof indexedDB === 'undefined' ? Promise.resolve(null) : openDatabase().catch(() => null));
  const store = async (name: string, mode: IDBTransactionMode) => {
    const handle = await db();
    return handle ? handle.transaction(name, mode).objectStore(name) : null;
  };
  return {
    async getCheckpoint(ringId, memberId) {
      const checkpoints = await store(CHECKPOINTS, 'readonly');
      if (!checkpoints) return memory.getCheckpoint(ringId, memberId);
      const found = (await idbRequest(checkpoints.get([ringId, memberId]))) as StoredCheckpoint | undefined;
      if (!found) return undefined;
      const { memberId: _member, ...checkpoint } = found;
      return checkpoint;
    },
    async putCheckpoint(memberId, checkpoint) {
      const checkpoints = await store(CHECKPOINTS, 'readwrite');
      if (!checkpoints) return memory.putCheckpoint(memberId, checkpoint);
      await idbRequest(checkpoints.put({ ...checkpoint, memberId } satisfies StoredCheckpoint));
    },
    async getVerified(ringId, memberId) {
      const verified = await store(VERIFIED, 'readonly');
      if (!verified) return memory.getVerified(ringId, memberId);
      const found = (await idbRequest(verified.get([ringId, memberId]))) as StoredVerified | undefined;
      return { ...found?.verified };
    },
    async putVerified(ringId, memberId, marks) {
      const verified = await store(VERIFIED, 'readwrite');
      if (!verified) return memory.putVerified(ringId, memberId, marks);
      await idbRequest(verified.put({ ringId, memberId, verified: { ...marks } } satisfies StoredVerified));
    },
  };
}
