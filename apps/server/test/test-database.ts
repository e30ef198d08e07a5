import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type DatabaseHandle, type DatabaseOptions } from '../src/db/database';
import { migrateToLatest } from '../src/db/migrate';

/** The project decides the dialect: `TEST_DB=postgres` runs the same suite on PostgreSQL. */
export const TEST_DB_KIND: 'sqlite' | 'postgres' = process.env.TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

export interface TestDatabase {
  /** Opens a new handle on the same database (a second server instance, say). */
  open(): DatabaseHandle;
  handle: DatabaseHandle;
  dataDir: string;
  drop(): Promise<void>;
}

/** A fresh, migrated database (empty with `migrate: false`): a temp SQLite file, or a new PostgreSQL schema. */
export async function createTestDatabase(
  options: Pick<DatabaseOptions, 'onQuery'> & { migrate?: boolean } = {},
): Promise<TestDatabase> {
  const { migrate = true, ...databaseOptions } = options;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'securering-test-'));
  if (TEST_DB_KIND === 'postgres') {
    const url = process.env.TEST_DATABASE_URL;
    if (!url) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL');
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    const open = () => openDatabase({ databaseUrl: url, pgSchema: schema, pgPoolSize: 4, ...databaseOptions });
    const handle = open();
    if (migrate) await migrateToLatest(handle.db);
    return {
      open,
      handle,
      dataDir,
      async drop() {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query(`drop schema if exists ${schema} cascade`);
        await client.end();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const file = path.join(dataDir, 'test.sqlite');
  const open = () => openDatabase({ sqlitePath: file, ...databaseOptions });
  const handle = open();
  if (migrate) await migrateToLatest(handle.db);
  return {
    open,
    handle,
    dataDir,
    async drop() {
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
