/**
 * « Se souvenir sur cet appareil » (issue 28): a member's unlocked E2EE identity kept in this
 * browser's IndexedDB (database "securering-device-keys") so that a reload does not ask for the
 * passphrase again. What is stored are the WebCrypto key objects themselves: their private halves
 * were imported with `extractable: false`, so the browser keeps the key material wrapped in its own
 * storage and no script (ours included) can ever read it out — only use it in this origin. Nothing
 * is sent anywhere; logging out of the Ring deletes the whole database.
 */

import { idbRequest, openIndexedDb } from './indexed-db';

/** Also deleted by name at logout (lib/auth/ring-session.tsx), without loading this module. */
const DB_NAME = 'securering-device-keys';
const DB_VERSION = 1;
const STORE = 'identities';

/** What a remembered unlock holds: the key pairs (private halves non-extractable) and their public form. */
export interface RememberedIdentity<Identity, PublicKeys> {
  ringId: string;
  memberId: string;
  identity: Identity;
  publicKeys: PublicKeys;
  savedAt: string;
}

function openDatabase(): Promise<IDBDatabase> {
  if (typeof indexedDB === 'undefined') return Promise.reject(new Error('IndexedDB indisponible'));
  return openIndexedDb(DB_NAME, DB_VERSION, (db) => {
    if (!db.objectStoreNames.contains(STORE))
      db.createObjectStore(STORE, { keyPath: ['ringId', 'memberId'] });
  });
}

async function withStore<T>(
  mode: IDBTransactionMode,
  run: (store: IDBObjectStore) => IDBRequest<T>,
): Promise<T> {
  const db = await openDatabase();
  try {
    const tx = db.transaction(STORE, mode);
    const result = await idbRequest(run(tx.objectStore(STORE)));
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error ?? new Error('IndexedDB'));
      tx.onabort = () => reject(tx.error ?? new Error('IndexedDB'));
    });
    return result;
  } finally {
    db.close();
  }
}

/** The identity remembered for this member of this Ring, if any (undefined when none or unreadable). */
export async function getRememberedIdentity<Identity, PublicKeys>(
  ringId: string,
  memberId: string,
): Promise<RememberedIdentity<Identity, PublicKeys> | undefined> {
  try {
    const found = await withStore(
      'readonly',
      (store) => store.get([ringId, memberId]) as IDBRequest<unknown>,
    );
    return (found as RememberedIdentity<Identity, PublicKeys> | undefined) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Remembers an unlocked identity for this member of this Ring (replacing an earlier one). */
export async function putRememberedIdentity<Identity, PublicKeys>(
  entry: RememberedIdentity<Identity, PublicKeys>,
): Promise<void> {
  await withStore('readwrite', (store) => store.put(entry));
}

/** Forgets this member's remembered identity (unticked, or the keys were replaced). */
export async function forgetRememberedIdentity(ringId: string, memberId: string): Promise<void> {
  await withStore('readwrite', (store) => store.delete([ringId, memberId])).catch(() => undefined);
}
