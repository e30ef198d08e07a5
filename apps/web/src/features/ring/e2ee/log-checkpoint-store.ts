import type { LogCheckpoint } from './keyring-policy';

/**
 * Where this browser remembers the head of each Ring's membership log it verified (per Ring and
 * member), so a server that later serves another history — a different genesis, a rewritten or
 * shortened log — is caught instead of believed (keyring-policy `checkAgainstCheckpoint`).
 */
export interface LogCheckpointStore {
  get(ringId: string, memberId: string): Promise<LogCheckpoint | undefined>;
  put(memberId: string, checkpoint: LogCheckpoint): Promise<void>;
}

const DB_NAME = 'securering-e2ee';
const DB_VERSION = 2;
const STORE = 'log-checkpoints';
/** Trust-on-first-use keys of version 1, replaced by the signed membership log. */
const OLD_STORE = 'seen-keys';

interface StoredCheckpoint extends LogCheckpoint {
  memberId: string;
}

/** An in-memory store: tests, and browsers where IndexedDB is unavailable (then per tab only). */
export function memoryLogCheckpointStore(): LogCheckpointStore {
  const records = new Map<string, LogCheckpoint>();
  return {
    get: (ringId, memberId) => Promise.resolve(records.get(`${ringId}:${memberId}`)),
    put: (memberId, checkpoint) => {
      records.set(`${checkpoint.ringId}:${memberId}`, checkpoint);
      return Promise.resolve();
    },
  };
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB'));
  });
}

function openDatabase(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(DB_NAME, DB_VERSION);
    open.onupgradeneeded = () => {
      const db = open.result;
      if (db.objectStoreNames.contains(OLD_STORE)) db.deleteObjectStore(OLD_STORE);
      if (!db.objectStoreNames.contains(STORE))
        db.createObjectStore(STORE, { keyPath: ['ringId', 'memberId'] });
    };
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error ?? new Error('IndexedDB'));
    open.onblocked = () => reject(new Error('IndexedDB blocked'));
  });
}

/**
 * The browser's IndexedDB store (database "securering-e2ee", store "log-checkpoints"); falls back
 * to memory when IndexedDB cannot be opened (some private modes), which limits the check to this
 * tab's lifetime.
 */
export function browserLogCheckpointStore(): LogCheckpointStore {
  let database: Promise<IDBDatabase | null> | null = null;
  const memory = memoryLogCheckpointStore();
  const db = () =>
    (database ??=
      typeof indexedDB === 'undefined' ? Promise.resolve(null) : openDatabase().catch(() => null));
  return {
    async get(ringId, memberId) {
      const handle = await db();
      if (!handle) return memory.get(ringId, memberId);
      const store = handle.transaction(STORE, 'readonly').objectStore(STORE);
      const found = (await request(store.get([ringId, memberId]))) as StoredCheckpoint | undefined;
      if (!found) return undefined;
      const { memberId: _member, ...checkpoint } = found;
      return checkpoint;
    },
    async put(memberId, checkpoint) {
      const handle = await db();
      if (!handle) return memory.put(memberId, checkpoint);
      const store = handle.transaction(STORE, 'readwrite').objectStore(STORE);
      await request(store.put({ ...checkpoint, memberId } satisfies StoredCheckpoint));
    },
  };
}
