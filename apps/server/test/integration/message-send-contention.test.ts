import { E2EE_MESSAGES, type TMessage } from '@securering/contract';
import { sql } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database';
import { messagesPerEpoch } from '../../src/modules/messages/messages.policy';
import { buildTestApp, type TestApp } from '../build-test-app';
import { keyedRing } from '../ring-fixture';
import { TEST_DB_KIND, createTestDatabase, type TestDatabase } from '../test-database';

const onPostgres = TEST_DB_KIND === 'postgres';

/** Resolves when `condition` holds (polled), rejects after `timeoutMs`. */
async function until(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Issue 16: every send to a Ring writes the same two rows (the epoch's message count, the room's
 * last sequence number). Under concurrency the count still stops an epoch at its limit, numbers
 * stay gapless and unique, a rotation or deactivation that lands while sends wait on the Ring's
 * row is honoured, and — on PostgreSQL — sends that hold every pooled connection do not make the
 * instance look down.
 */
describe('sending to a busy Ring: epoch limits, row locks and readiness', () => {
  const statements: string[] = [];
  let database: TestDatabase;
  let t: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase({ onQuery: (query) => statements.push(query.sql) });
    t = await buildTestApp({ database });
  });
  afterAll(async () => {
    await t.close();
    await database.handle.close();
    await database.drop();
  });

  const ringRow = (ringId: string) =>
    t.ctx.db
      .selectFrom('rings')
      .select(['epoch_message_count', 'current_epoch', 'rotation_due'])
      .where('id', '=', ringId)
      .executeTakeFirstOrThrow();
  const storedSeqs = async (ringId: string) =>
    (
      await t.ctx.db
        .selectFrom('messages')
        .select('seq')
        .where('ring_id', '=', ringId)
        .orderBy('seq')
        .execute()
    ).map((r) => r.seq);
  const lastSeq = async (ringId: string) =>
    (
      await t.ctx.db
        .selectFrom('conversations')
        .select('last_seq')
        .where('ring_id', '=', ringId)
        .executeTakeFirstOrThrow()
    ).last_seq;
  const seqsOf = (responses: LightMyRequestResponse[]) =>
    responses
      .filter((r) => r.statusCode === 200)
      .map((r) => (r.json() as { message: TMessage }).message.seq)
      .sort((a, b) => a - b);
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
  const rotationRequired = (currentEpoch: number) => ({
    success: false,
    error: E2EE_MESSAGES.rotationRequired,
    code: 'rotation_required',
    currentEpoch,
  });

  it('stops an epoch at its message limit when the last sends arrive together, and takes the others after a rotation', async () => {
    const { ringId, owner, members } = await keyedRing(t, 2);
    const limit = messagesPerEpoch('standard');
    // Three messages left under epoch 1.
    await t.ctx.db
      .updateTable('rings')
      .set({ epoch_message_count: limit - 3 })
      .where('id', '=', ringId)
      .execute();
    const texts = range(1, 10).map((i) => `message ${i}`);
    const first = await Promise.all(texts.map((text, i) => members[i % 2]!.send(text)));
    expect(first.map((r) => r.statusCode).sort()).toEqual([...Array(3).fill(200), ...Array(7).fill(409)]);
    for (const refused of first.filter((r) => r.statusCode === 409))
      expect(refused.json()).toEqual(rotationRequired(1));
    expect(seqsOf(first)).toEqual([1, 2, 3]);
    expect(await ringRow(ringId)).toMatchObject({ epoch_message_count: limit, current_epoch: 1 });
    expect(await storedSeqs(ringId)).toEqual([1, 2, 3]);

    // The client rotates and sends the refused ones again under epoch 2.
    expect((await owner.rotate()).statusCode).toBe(200);
    for (const member of members) await member.loadKeys();
    const again = await Promise.all(
      first
        .map((r, i) => ({ r, i }))
        .filter(({ r }) => r.statusCode === 409)
        .map(({ i }) => members[i % 2]!.send(texts[i]!, { epoch: 2 })),
    );
    expect(again.map((r) => r.statusCode)).toEqual(Array(7).fill(200));
    expect(seqsOf(again)).toEqual(range(4, 10));
    expect(await storedSeqs(ringId)).toEqual(range(1, 10));
    expect(await lastSeq(ringId)).toBe(10);
    expect(await ringRow(ringId)).toMatchObject({ epoch_message_count: 7, current_epoch: 2 });
  });

  it('tells the sender of the message that brings the epoch to 90 % to rotate ahead (rotationSoon), once in 20 after, concurrent sends included', async () => {
    const { ringId, members } = await keyedRing(t, 2);
    const limit = messagesPerEpoch('standard');
    const soonOf = (responses: LightMyRequestResponse[]) =>
      responses
        .filter((r) => r.statusCode === 200)
        .map((r) => r.json() as { message: TMessage; rotationSoon?: true })
        .filter((answer) => answer.rotationSoon === true)
        .map((answer) => answer.message.seq);
    await t.ctx.db
      .updateTable('rings')
      .set({ epoch_message_count: limit * 0.9 - 2 })
      .where('id', '=', ringId)
      .execute();
    // Sequentially: the 899th, 900th (told) and 901st messages of the epoch.
    const one = [];
    for (const text of ['a', 'b', 'c']) one.push(await members[0]!.send(text));
    expect(one.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(soonOf(one)).toEqual([2]);
    expect(one[1]!.json()).toMatchObject({ success: true, rotationSoon: true });
    expect(one[0]!.json()).not.toHaveProperty('rotationSoon');

    // Ten at once around the 920th: exactly one is told, whoever got that count.
    await t.ctx.db
      .updateTable('rings')
      .set({ epoch_message_count: limit * 0.92 - 5 })
      .where('id', '=', ringId)
      .execute();
    const together = await Promise.all(range(1, 10).map((i) => members[i % 2]!.send(`ensemble ${i}`)));
    expect(together.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    expect(soonOf(together)).toHaveLength(1);
    expect(await ringRow(ringId)).toMatchObject({ epoch_message_count: limit * 0.92 + 5, current_epoch: 1 });
  });

  it('looks up the room’s conversation row once per Ring, not on every send, and finds it again when the store fails', async () => {
    const { ringId, members } = await keyedRing(t, 1);
    expect((await members[0]!.send('première')).statusCode).toBe(200);
    statements.length = 0;
    expect((await members[0]!.send('deuxième')).statusCode).toBe(200);
    expect((await members[0]!.send('troisième')).statusCode).toBe(200);
    const lookups = () => statements.filter((s) => /select .* from "conversations"/is.test(s));
    expect(lookups()).toHaveLength(0);
    expect(await storedSeqs(ringId)).toEqual([1, 2, 3]);

    // The remembered row is gone (as when a store meets a row it no longer finds): the send fails
    // once, forgets it, and the next send looks the room up again (and makes it anew).
    await t.ctx.db.deleteFrom('conversations').where('ring_id', '=', ringId).execute();
    expect((await members[0]!.send('perdue')).statusCode).toBe(500);
    statements.length = 0;
    expect((await members[0]!.send('retrouvée')).statusCode).toBe(200);
    expect(lookups().length).toBeGreaterThan(0);
  });

  it.runIf(onPostgres)(
    'stores a send on PostgreSQL in one statement: the count, the sequence number and the message together',
    async () => {
      const { ringId, members } = await keyedRing(t, 1);
      expect((await members[0]!.send('échauffement')).statusCode).toBe(200);
      statements.length = 0;
      expect((await members[0]!.send('une seule instruction')).statusCode).toBe(200);
      const writes = statements.filter((s) => /\b(insert|update|delete|begin|commit)\b/i.test(s));
      expect(writes).toHaveLength(1);
      expect(writes[0]).toMatch(/update "rings"/);
      expect(writes[0]).toMatch(/update "conversations"/);
      expect(writes[0]).toMatch(/insert into "messages"/);
      expect(await storedSeqs(ringId)).toEqual([1, 2]);
    },
  );

  describe.runIf(onPostgres)('while sends wait on the Ring’s row (PostgreSQL)', () => {
    let holder: DatabaseHandle;
    beforeAll(() => {
      holder = database.open();
    });
    afterAll(async () => {
      await holder.close();
    });

    /**
     * Runs `sends` while another connection holds the Ring's row (its own transaction writing
     * `change`), once the app's pool is entirely taken by sends waiting on that row; `check` runs
     * then, and the holder commits (`commit`) or rolls back. Returns the sends' answers.
     */
    async function withRingLocked(
      ringId: string,
      options: {
        change: { rotation_due?: 0 | 1 };
        sends: () => Array<Promise<LightMyRequestResponse>>;
        check: () => Promise<void>;
        commit: boolean;
      },
    ): Promise<LightMyRequestResponse[]> {
      class Rollback extends Error {}
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked!: (pid: number) => void;
      const holderPid = new Promise<number>((resolve) => (locked = resolve));
      const transaction = holder.db
        .transaction()
        .execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          await trx
            .updateTable('rings')
            .set({ updated_at: new Date().toISOString(), ...options.change })
            .where('id', '=', ringId)
            .execute();
          locked(rows[0]!.pid);
          await released;
          if (!options.commit) throw new Rollback();
        })
        .catch((error: unknown) => {
          if (!(error instanceof Rollback)) throw error;
        });
      const pid = await holderPid;
      const answers = Promise.all(options.sends());
      // Every connection of the app's pool (4 in tests) waits, directly or in line, on the holder.
      await until(
        async () => {
          const { rows } = await sql<{ pid: number; blockers: number[] }>`
            select pid, pg_blocking_pids(pid) as blockers from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`.execute(holder.db);
          const blocked = new Set([pid]);
          for (let grew = true; grew;) {
            grew = false;
            for (const row of rows)
              if (!blocked.has(row.pid) && row.blockers.some((b) => blocked.has(b))) {
                blocked.add(row.pid);
                grew = true;
              }
          }
          return blocked.size - 1 >= 4;
        },
        20_000,
        'four sends waiting on the Ring row',
      );
      try {
        await options.check();
      } finally {
        release();
        await transaction;
      }
      return answers;
    }

    it('answers /readyz while every pooled connection waits on the Ring; the sends then go through, numbered without a gap', async () => {
      const { ringId, members } = await keyedRing(t, 2);
      const answers = await withRingLocked(ringId, {
        change: {},
        sends: () => range(1, 8).map((i) => members[i % 2]!.send(`en attente ${i}`)),
        check: async () => {
          const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
          expect(ready.statusCode, ready.body).toBe(200);
          expect(ready.json()).toMatchObject({ status: 'ok', checks: { database: 'ok' } });
        },
        commit: false,
      });
      expect(answers.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
      expect(seqsOf(answers)).toEqual(range(1, 8));
      expect(await storedSeqs(ringId)).toEqual(range(1, 8));
      expect(await ringRow(ringId)).toMatchObject({ epoch_message_count: 8, rotation_due: 0 });
    });

    it('refuses with rotation_required the sends that waited while a membership change made a rotation due', async () => {
      const { ringId, members } = await keyedRing(t, 2);
      expect((await members[0]!.send('avant')).statusCode).toBe(200);
      const answers = await withRingLocked(ringId, {
        change: { rotation_due: 1 },
        sends: () => range(1, 6).map((i) => members[i % 2]!.send(`trop tard ${i}`)),
        check: async () => undefined,
        commit: true,
      });
      expect(answers.map((r) => r.statusCode)).toEqual(Array(6).fill(409));
      for (const refused of answers) expect(refused.json()).toEqual(rotationRequired(1));
      expect(await storedSeqs(ringId)).toEqual([1]);
      expect(await lastSeq(ringId)).toBe(1);
      expect(await ringRow(ringId)).toMatchObject({ epoch_message_count: 1, rotation_due: 1 });
    });
  });
});
