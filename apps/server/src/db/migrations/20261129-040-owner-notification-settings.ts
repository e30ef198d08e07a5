import type { Kysely } from 'kysely';

interface Row {
  id: string;
  owner_type: string;
  owner_id: string;
  settings: string;
  updated_at: string;
}

/**
 * One set of notification settings per person (issue 25): a Ring's owner member reads and writes
 * its customer's record, so the customer space and the room edit the same choices. The settings an
 * owner member saved from the room move to its customer (the most recent save wins when the
 * customer, or another of its Rings, has one too); the owner members' rows go.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const k = db as unknown as Kysely<{
    notification_settings: Row;
    ring_members: { id: string; customer_id: string | null };
  }>;
  const ownerRows = await k
    .selectFrom('notification_settings')
    .innerJoin('ring_members', 'ring_members.id', 'notification_settings.owner_id')
    .select([
      'notification_settings.id as id',
      'notification_settings.settings as settings',
      'notification_settings.updated_at as updated_at',
      'ring_members.customer_id as customer_id',
    ])
    .where('notification_settings.owner_type', '=', 'member')
    .where('ring_members.customer_id', 'is not', null)
    .execute();
  for (const row of ownerRows) {
    const customerId = row.customer_id!;
    const current = await k
      .selectFrom('notification_settings')
      .selectAll()
      .where('owner_type', '=', 'customer')
      .where('owner_id', '=', customerId)
      .executeTakeFirst();
    if (!current) {
      // The row itself becomes the customer's (its id stays).
      await k
        .updateTable('notification_settings')
        .set({ owner_type: 'customer', owner_id: customerId })
        .where('id', '=', row.id)
        .execute();
      continue;
    }
    if (row.updated_at > current.updated_at) {
      await k
        .updateTable('notification_settings')
        .set({ settings: row.settings, updated_at: row.updated_at })
        .where('id', '=', current.id)
        .execute();
    }
    await k.deleteFrom('notification_settings').where('id', '=', row.id).execute();
  }
}

/** Nothing to undo: the owner members read their customer's record again only with the code. */
export async function down(): Promise<void> {}
