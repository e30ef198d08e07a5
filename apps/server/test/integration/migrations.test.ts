import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createAppContext } from '../../src/app-context';
import type { Database } from '../../src/db/database';
import { migrateTo, migrateToLatest } from '../../src/db/migrate';
import { migrations } from '../../src/db/migrations';
import { systemClock } from '../../src/lib/clock';
import { newId } from '../../src/lib/ids';
import { MessagesRepository } from '../../src/modules/messages/messages.repository';
import { SubscriptionRepository } from '../../src/modules/subscriptions/subscription.repository';
import { seedDatabase } from '../../src/seed/seed';
import { testConfig } from '../build-test-app';
import {
  buildCustomer,
  buildRing,
  buildRingMember,
  buildSubscription,
  customerToken,
  ringToken,
} from '../factories';
import { TEST_DB_KIND, createTestDatabase, type TestDatabase } from '../test-database';

describe('migrations', () => {
  const opened: TestDatabase[] = [];
  afterAll(async () => {
    for (const database of opened) {
      await database.handle.close();
      await database.drop();
    }
  });

  // On PostgreSQL each database is a schema of the same server: the migrator must keep to its own
  // (it used to see another schema's kysely_migration_lock and skip creating its own).
  it('migrates two databases side by side, each to the latest version', async () => {
    opened.push(await createTestDatabase());
    opened.push(await createTestDatabase());
    for (const { handle } of opened) {
      expect((await migrateToLatest(handle.db)).results).toEqual([]);
      const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
        handle.db,
      );
      expect(applied.rows.map((r) => r.name)).toEqual(Object.keys(migrations).sort());
      // The latest migration's columns are there.
      await handle.db.selectFrom('sessions').select(['parent_session_id', 'used_at']).limit(1).execute();
    }
  });
});

describe('migrations on a database an older version filled', () => {
  /**
   * The version the fill happens at: the last migration before the ones of 24/11 evening (data fixes
   * and indexes). The factories write today's columns, so this must be a version that has them all:
   * move it forward when a migration adds a column the factories fill (a column with a default,
   * such as the Ring's key revision, the factories leave to the database).
   */
  const FILLED_BASE = '20261124-004-calls-status-index';
  /** Tables a later migration changes on purpose (data fixes): their rows must stay, values may change. */
  const FIXED_BY_MIGRATIONS = new Set(['plans', 'settings']);
  let database: TestDatabase;

  afterAll(async () => {
    await database?.handle.close();
    await database?.drop();
  });

  /**
   * Every row of every table, as sorted JSON; `columns` keeps only the columns a table's rows had in
   * an earlier snapshot (a later migration may add columns, with their defaults). Columns are taken
   * from the rows: on PostgreSQL the introspection also lists other test files' schemas.
   */
  async function snapshot(
    db: Database,
    columns?: Map<string, Set<string>>,
  ): Promise<{ rows: Map<string, string[]>; columns: Map<string, Set<string>> }> {
    const out = new Map<string, string[]>();
    const seen = new Map<string, Set<string>>();
    // On PostgreSQL, only this database's schema: another test file's schema may hold tables that a
    // later migration creates here.
    const schema =
      TEST_DB_KIND === 'postgres'
        ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s
        : undefined;
    const tables = new Set(
      (await db.introspection.getTables())
        .filter((table) => schema === undefined || table.schema === schema)
        .map((table) => table.name),
    );
    for (const table of [...tables].filter((name) => !name.startsWith('kysely_'))) {
      const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
      seen.set(table, new Set(Object.keys(rows.rows[0] ?? {})));
      const kept = columns?.get(table);
      out.set(
        table,
        rows.rows
          .map((row) =>
            JSON.stringify(
              Object.entries(row)
                .filter(([column]) => !kept || kept.has(column))
                .sort(),
            ),
          )
          .sort(),
      );
    }
    return { rows: out, columns: seen };
  }

  it('keeps every row of every table through the newer migrations, and applies them all', async () => {
    database = await createTestDatabase({ migrate: false });
    const { db } = database.handle;
    await migrateTo(db, FILLED_BASE);
    const ctx = createAppContext({
      config: testConfig({ dataDir: database.dataDir }),
      database: database.handle,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
    });
    await seedDatabase(ctx);
    const customers: string[] = [];
    const conversations: Array<{ id: string; ringId: string; senderId: string }> = [];
    for (let c = 0; c < 3; c++) {
      const customer = await buildCustomer(ctx);
      customers.push(customer.id);
      await buildSubscription(ctx, customer.id);
      const ring = await buildRing(ctx, customer.id);
      const members: Array<{ id: string }> = [];
      for (let m = 0; m < 3; m++) members.push(await buildRingMember(ctx, ring.id));
      for (const member of members) await ringToken(ctx, member.id);
      await customerToken(ctx, customer.id);
      const conversation = newId();
      conversations.push({ id: conversation, ringId: ring.id, senderId: members[0]!.id });
      const now = new Date().toISOString();
      await db
        .insertInto('conversations')
        .values({
          id: conversation,
          ring_id: ring.id,
          kind: 'room',
          conversation_key: 'room:general',
          created_at: now,
          last_seq: 5,
        })
        .execute();
      await db
        .insertInto('messages')
        .values(
          Array.from({ length: 5 }, (_, i) => ({
            id: newId(),
            ring_id: ring.id,
            conversation_id: conversation,
            sender_member_id: members[i % 3]!.id,
            content: `{"v":1,"ct":"${i}"}`,
            message_type: 'text',
            client_encrypted: 1,
            is_ephemeral: 0,
            expires_at: null,
            created_at: now,
            seq: i + 1,
            client_message_id: newId(),
            epoch: 1,
          })),
        )
        .execute();
      await ctx.systemLog.info('auth', 'Connexion', { userId: customer.id });
    }
    const { rows: before, columns } = await snapshot(db);
    expect(before.get('messages')).toHaveLength(15);

    const result = await migrateToLatest(db);
    const names = Object.keys(migrations);
    expect(result.results?.map((r) => r.migrationName)).toEqual(names.slice(names.indexOf(FILLED_BASE) + 1));
    const { rows: after } = await snapshot(db, columns);
    for (const [table, rows] of before) {
      if (FIXED_BY_MIGRATIONS.has(table)) expect(after.get(table)?.length, table).toBe(rows.length);
      else expect(after.get(table), table).toEqual(rows);
    }
    // The data still works with today's code: each owner's current subscription is found, and each
    // conversation goes on from its last sequence.
    const nowIso = new Date().toISOString();
    // Rings filled before the key revision start at 0 (20261128-001).
    expect(
      new Set((await db.selectFrom('rings').select('key_revision').execute()).map((r) => r.key_revision)),
    ).toEqual(new Set([0]));
    for (const id of customers)
      expect((await new SubscriptionRepository(db).findCurrent(id, nowIso))?.customer_id).toBe(id);
    const messages = new MessagesRepository(db, database.handle);
    for (const conversation of conversations) {
      const { current_epoch: epoch } = await db
        .selectFrom('rings')
        .select('current_epoch')
        .where('id', '=', conversation.ringId)
        .executeTakeFirstOrThrow();
      const stored = await messages.storeUnderEpoch(
        {
          id: newId(),
          ring_id: conversation.ringId,
          conversation_id: conversation.id,
          sender_member_id: conversation.senderId,
          content: '{"v":1,"ct":"6"}',
          message_type: 'text',
          client_encrypted: 1,
          is_ephemeral: 0,
          expires_at: null,
          created_at: nowIso,
          client_message_id: newId(),
          epoch,
          ephemeral_sec: null,
          first_read_at: null,
        },
        1000,
      );
      expect(stored?.seq).toBe(6);
    }
  });
});
