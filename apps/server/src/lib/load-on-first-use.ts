import { createRequire } from 'node:module';

const requirePackage = createRequire(import.meta.url);

/**
 * A CommonJS package loaded the first time it is used rather than when the server starts: an
 * instance that never needs it (PostgreSQL's driver on SQLite, the Redis client and adapter without
 * REDIS_URL, the zip libraries until a backup) keeps none of its code in memory. The server's heap is
 * resident memory on every instance (issue 30: these packages held 2.7 MiB of an idle server's
 * heap on SQLite without Redis). Synchronous, for the places that open a client or a pool without
 * awaiting; packages that callers await anyway are loaded with `import()` instead (the payment,
 * mail and storage providers).
 */
export function loadOnFirstUse<T>(packageName: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requirePackage(packageName) as T);
}
