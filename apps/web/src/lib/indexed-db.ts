/** Small IndexedDB plumbing shared by the browser's local stores (remembered keys, trust checkpoints). */

/** The result of an IndexedDB request as a promise. */
export function idbRequest<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB'));
  });
}

/** Opens database `name` at `version`, `upgrade` creating its stores; rejects when blocked or refused. */
export function openIndexedDb(
  name: string,
  version: number,
  upgrade: (db: IDBDatabase) => void,
): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(name, version);
    open.onupgradeneeded = () => upgrade(open.result);
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error ?? new Error('IndexedDB'));
    open.onblocked = () => reject(new Error('IndexedDB blocked'));
  });
}
