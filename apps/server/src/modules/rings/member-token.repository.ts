import type { Database } from '../../db/database';
import type { RingMemberTokensTable } from '../../db/schema';

export type RingMemberTokenRow = RingMemberTokensTable;

/** A member who may ask for a reset link: accepted, active, not the owner (it resets as a customer). */
export interface ResettableMember {
  id: string;
  username: string;
  email: string;
  ring_name: string;
}

/** SQL of the members' password-reset links (`ring_member_tokens`). */
export class MemberTokenRepository {
  constructor(private readonly db: Database) {}

  async findResettableMembersByEmail(email: string): Promise<ResettableMember[]> {
    const rows = await this.db
      .selectFrom('ring_members')
      .innerJoin('rings', 'rings.id', 'ring_members.ring_id')
      .select(['ring_members.id', 'ring_members.username', 'ring_members.email', 'rings.name as ring_name'])
      .where('ring_members.email', '=', email)
      .where('ring_members.status', '=', 'active')
      .where('ring_members.is_used', '=', 1)
      .where('ring_members.role', '!=', 'owner')
      .orderBy('rings.created_at')
      .execute();
    return rows.filter((r): r is ResettableMember => r.email !== null);
  }

  async insert(row: RingMemberTokenRow): Promise<void> {
    await this.db.insertInto('ring_member_tokens').values(row).execute();
  }

  find(tokenHash: string): Promise<RingMemberTokenRow | undefined> {
    return this.db
      .selectFrom('ring_member_tokens')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .where('purpose', '=', 'reset_password')
      .executeTakeFirst();
  }

  /**
   * Uses the token up and sets the member's password, in one transaction: true for exactly one
   * caller (a second use, or a member no longer active and accepted, changes nothing). Every other
   * reset link of the member is used up with it.
   */
  async resetPassword(token: RingMemberTokenRow, passwordHash: string, nowIso: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const used = await trx
        .updateTable('ring_member_tokens')
        .set({ used_at: nowIso })
        .where('id', '=', token.id)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      if (Number(used.numUpdatedRows) !== 1) return false;
      const updated = await trx
        .updateTable('ring_members')
        .set({ password_hash: passwordHash, updated_at: nowIso })
        .where('id', '=', token.member_id)
        .where('status', '=', 'active')
        .where('is_used', '=', 1)
        .where('role', '!=', 'owner')
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return false;
      await trx
        .updateTable('ring_member_tokens')
        .set({ used_at: nowIso })
        .where('member_id', '=', token.member_id)
        .where('purpose', '=', 'reset_password')
        .where('used_at', 'is', null)
        .execute();
      return true;
    });
  }
}
