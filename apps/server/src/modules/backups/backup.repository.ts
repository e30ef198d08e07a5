import { sql, type Kysely } from 'kysely';
import type { Database, DialectName } from '../../db/database';
import { migrations as knownMigrations } from '../../db/migrations';
import type { DB } from '../../db/schema';
import { MIGRATION_TABLES, orderTablesByDependencies } from './backup.policy';

export type Row = Record<string, unknown>;
type Executor = Kysely<DB>;

/** Rows per statement: 200 rows of the widest table stay far below SQLite's 32 766 variables. */
export const INSERT_BATCH_ROWS = 200;
const EXPORT_PAGE_ROWS = 500;

export interface TableShape {
  name: string;
  columns: string[];
}

/**
 * The SQL of backups: what tables exist (read from the live database, so a table added by a later
 * migration is carried without touching this module), their foreign-key order, paged reads,
 * deletes and batched inserts. Identifiers are quoted whole by Kysely; values are always bound.
 */
export class BackupRepository {
  constructor(
    private readonly db: Database,
    private readonly dialect: DialectName,
  ) {}

  /** Every application table with its columns, parents before the tables that reference them. */
  async tablesInDependencyOrder(executor: Executor = this.db): Promise<TableShape[]> {
    const names = (await this.tableNames(executor)).filter(
      (t) => !(MIGRATION_TABLES as readonly string[]).includes(t),
    );
    const order = orderTablesByDependencies(names, await this.foreignKeys(executor));
    const shapes: TableShape[] = [];
    for (const name of order) shapes.push({ name, columns: await this.columns(executor, name) });
    return shapes;
  }

  private async tableNames(executor: Executor): Promise<string[]> {
    if (this.dialect === 'sqlite') {
      const result = await sql<{
        name: string;
      }>`select name from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\'`.execute(
        executor,
      );
      return result.rows.map((r) => r.name);
    }
    const result = await sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(executor);
    return result.rows.map((r) => r.name);
  }

  private async columns(executor: Executor, table: string): Promise<string[]> {
    if (this.dialect === 'sqlite') {
      const result = await sql<{
        name: string;
      }>`select name from pragma_table_info(${table}) order by cid`.execute(executor);
      return result.rows.map((r) => r.name);
    }
    const result = await sql<{ name: string }>`
      select column_name as name from information_schema.columns
      where table_schema = current_schema() and table_name = ${table}
      order by ordinal_position`.execute(executor);
    return result.rows.map((r) => r.name);
  }

  private async foreignKeys(executor: Executor): Promise<Array<{ child: string; parent: string }>> {
    if (this.dialect === 'sqlite') {
      const result = await sql<{ child: string; parent: string }>`
        select m.name as child, f."table" as parent
        from sqlite_master m join pragma_foreign_key_list(m.name) f
        where m.type = 'table'`.execute(executor);
      return result.rows;
    }
    const result = await sql<{ child: string; parent: string }>`
      select child.relname as child, parent.relname as parent
      from pg_constraint c
      join pg_class child on child.oid = c.conrelid
      join pg_class parent on parent.oid = c.confrelid
      join pg_namespace n on n.oid = child.relnamespace
      where c.contype = 'f' and n.nspname = current_schema()`.execute(executor);
    return result.rows;
  }

  /** Names of the applied migrations, in order; the bundled list when the table cannot be read. */
  async appliedMigrations(executor: Executor = this.db): Promise<string[]> {
    try {
      const result = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
        executor,
      );
      return result.rows.map((r) => r.name);
    } catch {
      return Object.keys(knownMigrations).sort();
    }
  }

  /**
   * Reads a table page by page, in a stable order: by `id` (keyset) when the table has one,
   * otherwise by every column (offset), so no page repeats or skips a row within one transaction.
   */
  async *pages(executor: Executor, table: TableShape): AsyncGenerator<Row[]> {
    if (table.columns.includes('id')) {
      let last: unknown = undefined;
      for (;;) {
        const after = last === undefined ? sql`` : sql`where ${sql.id('id')} > ${last}`;
        const result =
          await sql<Row>`select * from ${sql.id(table.name)} ${after} order by ${sql.id('id')} limit ${EXPORT_PAGE_ROWS}`.execute(
            executor,
          );
        if (result.rows.length === 0) return;
        yield result.rows;
        if (result.rows.length < EXPORT_PAGE_ROWS) return;
        last = result.rows[result.rows.length - 1]!.id;
      }
    }
    const orderBy = sql.join(table.columns.map((c) => sql.id(c)));
    for (let offset = 0; ; offset += EXPORT_PAGE_ROWS) {
      const result =
        await sql<Row>`select * from ${sql.id(table.name)} order by ${orderBy} limit ${EXPORT_PAGE_ROWS} offset ${offset}`.execute(
          executor,
        );
      if (result.rows.length === 0) return;
      yield result.rows;
      if (result.rows.length < EXPORT_PAGE_ROWS) return;
    }
  }

  /**
   * PostgreSQL: blocks other writers on every table until the restore commits, so no row written
   * meanwhile survives next to the restored ones (readers go on). SQLite has one connection already.
   */
  async lockForRestore(executor: Executor, tables: string[]): Promise<void> {
    if (this.dialect !== 'postgres' || tables.length === 0) return;
    await sql`lock table ${sql.join(tables.map((t) => sql.id(t)))} in exclusive mode`.execute(executor);
  }

  /** Every stored setting (the restore keeps the current secrets it cannot bring back). */
  settingsRows(executor: Executor): Promise<Array<{ category: string; key: string; setting_value: string }>> {
    return executor.selectFrom('settings').select(['category', 'key', 'setting_value']).execute();
  }

  /** Sets each conversation's last sequence number to its highest stored message's. */
  async resyncConversationSequences(executor: Executor): Promise<void> {
    await executor
      .updateTable('conversations')
      .set((eb) => ({
        last_seq: eb.fn.coalesce(
          eb
            .selectFrom('messages')
            .select((m) => m.fn.max('messages.seq').as('max_seq'))
            .whereRef('messages.conversation_id', '=', 'conversations.id'),
          eb.lit(0),
        ),
      }))
      .execute();
  }

  async deleteAll(executor: Executor, table: string): Promise<void> {
    await sql`delete from ${sql.id(table)}`.execute(executor);
  }

  /** Inserts rows that all have the given columns, in one statement. */
  async insertRows(executor: Executor, table: string, columns: string[], rows: Row[]): Promise<void> {
    if (rows.length === 0) return;
    const values = sql.join(
      rows.map((row) => sql`(${sql.join(columns.map((c) => sql`${row[c] ?? null}`))})`),
    );
    await sql`insert into ${sql.id(table)} (${sql.join(columns.map((c) => sql.id(c)))}) values ${values}`.execute(
      executor,
    );
  }
}
