import type { SeenKey } from './keyring-policy';

/**
 * Where this browser remembers the public keys it has seen per (Ring, member), so a key the
 * server changes shows up as a safety-number change instead of being silently used.
 */
export interface SeenKeysStore {
  get(ringId: string, memberId: string): Promise<SeenKey | undefined>;
  put(record: SeenKey): Promise<void>;
}

const DB_NAME = 'securering-e2ee';
const STORE = 'seen-keys';

/** An in-memory store: tests, and browsers where IndexedDB is unavailable (then per tab only). */
export function memorySeenKeysStore(): SeenKeysStore {
  const records = new Map<string, SeenKey>();
  return {
    get: (ringId, memberId) => Promise.resolve(records.get(`${ringId}:${memberId}`)),
    put: (record) => {
      records.set(`${record.ringId}:${record.memberId}`, record);
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
    const open = indexedDB.open(DB_NAME, 1);
    open.onupgradeneeded = () => {
      if (!open.result.objectStoreNames.contains(STORE)) {
        open.result.createObjectStore(STORE, { keyPath: ['ringId', 'memberId'] });
      }
    };
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error ?? new Error('IndexedDB'));
    open.onblocked = () => reject(new Error('IndexedDB blocked'));
  });
}

/**
 * The browser's IndexedDB store (database "securering-e2ee", store "seen-keys"); falls back to
 * memory when IndexedDB cannot be opened (some private modes), which only weakens the warning to
 * this tab's lifetime.
 */
export function browserSeenKeysStore(): SeenKeysStore {
  let database: Promise<IDBDatabase | null> | null = null;
  const memory = memorySeenKeysStore();
  const db = () =>
    (database ??=
      typeof indexedDB === 'undefined' ? Promise.resolve(null) : openDatabase().catch(() => null));
  return {
    async get(ringId, memberId) {
      const handle = await db();
      if (!handle) return memory.get(ringId, memberId);
      const store = handle.transaction(STORE, 'readonly').objectStore(STORE);
      return (await request(store.get([ringId, memberId]))) as SeenKey | undefined;
    },
    async put(record) {
      const handle = await db();
      if (!handle) return memory.put(record);
      const store = handle.transaction(STORE, 'readwrite').objectStore(STORE);
      await request(store.put(record));
    },
  };
}
