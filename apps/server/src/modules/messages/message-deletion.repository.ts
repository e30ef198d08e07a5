import type { Database } from '../../db/database';

/** SQL of a sender's deletion of their own message (issue 29). */
export class MessageDeletionRepository {
  constructor(private readonly db: Database) {}

  /** The messages of a conversation (its row id) signed under this client message id, any sender. */
  findByClientMessageId(
    conversationId: string,
    clientMessageId: string,
  ): Promise<Array<{ id: string; sender_member_id: string | null }>> {
    return this.db
      .selectFrom('messages')
      .select(['id', 'sender_member_id'])
      .where('conversation_id', '=', conversationId)
      .where('client_message_id', '=', clientMessageId)
      .execute();
  }

  /** Deletes the message row (its ciphertext) and its read records, if `senderId` sent it. */
  deleteOwn(messageId: string, senderId: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('message_reads').where('message_id', '=', messageId).execute();
      const result = await trx
        .deleteFrom('messages')
        .where('id', '=', messageId)
        .where('sender_member_id', '=', senderId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    });
  }
}
