import type { Migration } from 'kysely';
import * as initial from './20261122-001-initial';
import * as streamTokenBinding from './20261124-001-stream-token-binding';

/** Ordered migrations, bundled statically so the built server needs no migration folder on disk. */
export const migrations: Record<string, Migration> = {
  '20261122-001-initial': initial,
  '20261124-001-stream-token-binding': streamTokenBinding,
};
