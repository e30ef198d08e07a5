import type { Migration } from 'kysely';
import * as initial from './20261122-001-initial';

/** Ordered migrations, bundled statically so the built server needs no migration folder on disk. */
export const migrations: Record<string, Migration> = {
  '20261122-001-initial': initial,
};
