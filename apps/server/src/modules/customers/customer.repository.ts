import type { Database } from '../../db/database';
import type { CustomerTokensTable, CustomersTable } from '../../db/schema';

export type CustomerRow = CustomersTable;
export type CustomerTokenRow = CustomerTokensTable;
type Executor = Database;

export class CustomerRepository {
  constructor(private readonly db: Database) {}

  findById(id: string, trx: Executor = this.db): Promise<CustomerRow | undefined> {
    return trx.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** `email` must already be normalised (trimmed, lower-cased). */
  findByEmail(email: string, trx: Executor = this.db): Promise<CustomerRow | undefined> {
    return trx.selectFrom('customers').selectAll().where('email', '=', email).executeTakeFirst();
  }

  async insert(row: CustomerRow, trx: Executor = this.db): Promise<void> {
    await trx.insertInto('customers').values(row).execute();
  }

  async update(
    id: string,
    changes: Partial<Omit<CustomerRow, 'id' | 'created_at'>>,
    trx: Executor = this.db,
  ): Promise<void> {
    await trx.updateTable('customers').set(changes).where('id', '=', id).execute();
  }

  async insertToken(row: CustomerTokenRow, trx: Executor = this.db): Promise<void> {
    await trx.insertInto('customer_tokens').values(row).execute();
  }

  findToken(
    purpose: CustomerTokenRow['purpose'],
    tokenHash: string,
    trx: Executor = this.db,
  ): Promise<CustomerTokenRow | undefined> {
    return trx
      .selectFrom('customer_tokens')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .where('purpose', '=', purpose)
      .executeTakeFirst();
  }

  /** Marks a token used if nobody did before: true for exactly one caller. */
  async consumeToken(id: string, nowIso: string, trx: Executor = this.db): Promise<boolean> {
    const result = await trx
      .updateTable('customer_tokens')
      .set({ used_at: nowIso })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** A verification token may log in once after it verified the email. */
  async consumeTokenLogin(id: string, nowIso: string, trx: Executor = this.db): Promise<boolean> {
    const result = await trx
      .updateTable('customer_tokens')
      .set({ login_used_at: nowIso })
      .where('id', '=', id)
      .where('used_at', 'is not', null)
      .where('login_used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async consumeAllTokens(
    customerId: string,
    purpose: CustomerTokenRow['purpose'],
    nowIso: string,
    trx: Executor = this.db,
  ): Promise<void> {
    await trx
      .updateTable('customer_tokens')
      .set({ used_at: nowIso })
      .where('customer_id', '=', customerId)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .execute();
  }
}
