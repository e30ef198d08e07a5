import type { Kysely } from 'kysely';

/** The default lifetime of a pending invitation (INVITATION_TTL_DAYS), for the rows written before. */
const DEFAULT_TTL_MS = 7 * 86_400_000;

/**
 * `ring_members.invite_expires_at` (issue 27): an unaccepted invitation code is a bearer
 * credential, so it expires (INVITATION_TTL_DAYS after it was created or last sent again). The
 * invitations pending before this migration get 7 days from their creation: the oldest are
 * expired at once, and their owner sends them again (« Renvoyer »). Null for accepted members.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ring_members').addColumn('invite_expires_at', 'text').execute();
  const k = db as unknown as Kysely<{
    ring_members: { id: string; created_at: string; is_used: number; invite_expires_at: string | null };
  }>;
  const pending = await k
    .selectFrom('ring_members')
    .select(['id', 'created_at'])
    .where('is_used', '=', 0)
    .execute();
  for (const row of pending) {
    const created = Date.parse(row.created_at);
    const expiresAt = new Date((Number.isNaN(created) ? Date.now() : created) + DEFAULT_TTL_MS);
    await k
      .updateTable('ring_members')
      .set({ invite_expires_at: expiresAt.toISOString() })
      .where('id', '=', row.id)
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ring_members').dropColumn('invite_expires_at').execute();
}
