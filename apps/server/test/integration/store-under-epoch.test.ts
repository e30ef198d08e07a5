import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUniqueViolation } from '../../src/db/database';
import { newId } from '../../src/lib/ids';
import { MessagesRepository, type NewMessage } from '../../src/modules/messages/messages.repository';
import { buildTestApp, type TestApp } from '../build-test-app';
import { buildCustomer, buildRing, buildRingMember } from '../factories';

/**
 * MessagesRepository.storeUnderEpoch, the send's store (precompiled statements: a synchronous
 * transaction of three on SQLite, one statement on PostgreSQL): all or nothing, numbered without a
 * gap.
 */
describe('storing a message under its Ring’s epoch', () => {
  let t: TestApp;
  let repo: MessagesRepository;
  beforeAll(async () => {
    t = await buildTestApp({ redis: false });
    repo = new MessagesRepository(t.ctx.db, t.ctx.database);
  });
  afterAll(() => t.close());

  async function ringWithRoom() {
    const customer = await buildCustomer(t.ctx);
    const ring = await buildRing(t.ctx, customer.id, { current_epoch: 1, epoch_message_count: 0 });
    const member = await buildRingMember(t.ctx, ring.id);
    const room = await repo.ensureConversation({
      id: newId(),
      ring_id: ring.id,
      kind: 'room',
      conversation_key: 'room:general',
      created_at: new Date().toISOString(),
    });
    const message = (clientMessageId = newId()): NewMessage => ({
      id: newId(),
      ring_id: ring.id,
      conversation_id: room.id,
      sender_member_id: member.id,
      content: 'enveloppe',
      message_type: 'text',
      client_encrypted: 1,
      is_ephemeral: 0,
      expires_at: null,
      created_at: new Date().toISOString(),
      client_message_id: clientMessageId,
      epoch: 1,
      ephemeral_sec: null,
      first_read_at: null,
    });
    const state = async () => ({
      count: (
        await t.ctx.db
          .selectFrom('rings')
          .select('epoch_message_count')
          .where('id', '=', ring.id)
          .executeTakeFirstOrThrow()
      ).epoch_message_count,
      lastSeq: (await repo.findConversation(ring.id, 'room:general'))!.last_seq,
      stored: (
        await t.ctx.db
          .selectFrom('messages')
          .select(['seq', 'client_message_id'])
          .where('conversation_id', '=', room.id)
          .orderBy('seq')
          .execute()
      ).map((row) => row.seq),
    });
    return { message, state };
  }

  it('numbers the messages 1, 2, 3 and counts them under the epoch, with every column stored', async () => {
    const { message, state } = await ringWithRoom();
    const first = message();
    expect(await repo.storeUnderEpoch(first, 10)).toEqual({ seq: 1, epochCount: 1 });
    expect(await repo.storeUnderEpoch(message(), 10)).toEqual({ seq: 2, epochCount: 2 });
    expect(await repo.storeUnderEpoch(message(), 10)).toEqual({ seq: 3, epochCount: 3 });
    expect(await state()).toEqual({ count: 3, lastSeq: 3, stored: [1, 2, 3] });
    const row = await t.ctx.db
      .selectFrom('messages')
      .selectAll()
      .where('id', '=', first.id)
      .executeTakeFirst();
    expect(row).toEqual({ ...first, seq: 1 });
  });

  it('refuses past the epoch’s limit or under another epoch, storing nothing', async () => {
    const { message, state } = await ringWithRoom();
    expect(await repo.storeUnderEpoch(message(), 1)).toEqual({ seq: 1, epochCount: 1 });
    expect(await repo.storeUnderEpoch(message(), 1)).toBeUndefined();
    expect(await repo.storeUnderEpoch({ ...message(), epoch: 2 }, 10)).toBeUndefined();
    expect(await state()).toEqual({ count: 1, lastSeq: 1, stored: [1] });
  });

  it('fails a second message of the same client id with the unique violation, counting and numbering nothing', async () => {
    const { message, state } = await ringWithRoom();
    const clientMessageId = newId();
    expect(await repo.storeUnderEpoch(message(clientMessageId), 10)).toEqual({ seq: 1, epochCount: 1 });
    const failure = await repo.storeUnderEpoch(message(clientMessageId), 10).catch((error: unknown) => error);
    expect(isUniqueViolation(failure)).toBe(true);
    expect(await state()).toEqual({ count: 1, lastSeq: 1, stored: [1] });
    // The next message takes the number the failed one did not keep.
    expect(await repo.storeUnderEpoch(message(), 10)).toEqual({ seq: 2, epochCount: 2 });
  });

  it('waits for a transaction open on the connection, then stores without mixing into it', async () => {
    const { message, state } = await ringWithRoom();
    const first = message();
    let storing: Promise<unknown> | undefined;
    // A send arrives while another request's transaction is open and then rolled back: it is
    // stored after that transaction, not inside it (whose rollback would take it away).
    const failure = await t.ctx.db
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('rings').set({ name: 'Renommé' }).where('id', '=', first.ring_id).execute();
        storing = repo.storeUnderEpoch(first, 10);
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('annulée');
      })
      .catch((error: unknown) => error);
    expect((failure as Error).message).toBe('annulée');
    expect(await storing).toEqual({ seq: 1, epochCount: 1 });
    expect(await state()).toEqual({ count: 1, lastSeq: 1, stored: [1] });
    const ring = await t.ctx.db
      .selectFrom('rings')
      .select('name')
      .where('id', '=', first.ring_id)
      .executeTakeFirstOrThrow();
    expect(ring.name).not.toBe('Renommé');
  });

  it('reports each of its statements to the query observers, as Kysely’s queries are', async () => {
    const { message } = await ringWithRoom();
    const seen: boolean[] = [];
    const restore = t.ctx.database.observeQueries((_ms, failed) => seen.push(failed));
    try {
      await repo.storeUnderEpoch(message(), 10);
    } finally {
      restore();
    }
    // SQLite: the count, the numbering and the insert; PostgreSQL: one statement.
    expect(seen).toEqual(t.ctx.database.dialect === 'postgres' ? [false] : [false, false, false]);
  });
});
