import { CHAT_API_PATHS, KEY_API_PATHS, RING_FILES_API_PATHS } from '@securering/contract';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RingRepository } from '../../src/modules/rings/ring.repository';
import { buildJobs } from '../../src/jobs';
import { LAST_SEEN_WRITE_DELAY_MS } from '../../src/realtime/last-seen-writer';
import { PRESENCE_BATCH_INTERVAL_MS } from '../../src/realtime/presence-batcher';
import { buildTestApp, type TestApp } from '../build-test-app';
import type { E2eeMember } from '../e2ee-member';
import { bearer, buildSubscription, customerToken } from '../factories';
import { joinedSocket, ringWithMembers } from '../ring-fixture';
import { connectSocket, listen, type TestSocket } from '../socket-client';
import { createTestDatabase, TEST_DB_KIND, type TestDatabase } from '../test-database';

/**
 * Tables that stay small whatever the traffic (a row per setting, plan, template, admin or
 * migration): a full scan of them is as cheap as an index lookup.
 */
const SMALL_TABLES = new Set([
  'settings',
  'plans',
  'email_templates',
  'admins',
  'admin_permissions',
  'kysely_migration',
  'kysely_migration_lock',
]);

interface Query {
  sql: string;
  parameters: readonly unknown[];
}

/** Tables a PostgreSQL plan reads with a sequential scan (EXPLAIN, FORMAT JSON). */
function seqScansOf(plan: unknown, found: string[] = []): string[] {
  if (Array.isArray(plan)) for (const item of plan) seqScansOf(item, found);
  else if (plan && typeof plan === 'object') {
    const node = plan as Record<string, unknown>;
    if (node['Node Type'] === 'Seq Scan') found.push(String(node['Relation Name']));
    for (const value of Object.values(node)) if (typeof value === 'object') seqScansOf(value, found);
  }
  return found;
}

/**
 * Every query of the hot paths (a Ring member's requests and socket events, and the jobs that run
 * every few seconds on every instance) must find its rows through an index on a table that grows:
 * on PostgreSQL with sequential scans disabled, a plan that still scans a table has no index to
 * use; on SQLite, EXPLAIN QUERY PLAN must not `SCAN` a growing table.
 */
describe(`hot queries use an index (${TEST_DB_KIND})`, () => {
  const queries: Query[] = [];
  let recording = false;
  let database: TestDatabase;
  let t: TestApp;
  let baseUrl: string;
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    database = await createTestDatabase({
      onQuery: (query) => {
        if (recording) queries.push(query);
      },
    });
    t = await buildTestApp({ database });
    baseUrl = await listen(t.app);
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await t.close();
    await database.drop();
  });

  async function scenario(): Promise<void> {
    const { owner, members, customerId } = await ringWithMembers(t, 3);
    const [bob, carol] = members as [E2eeMember, E2eeMember];
    // A past subscription beside the current one (one active per customer: unique index).
    await buildSubscription(t.ctx, customerId, { status: 'expired' });
    for (const member of [owner, bob]) await member.publish();
    await owner.rotate();
    await bob.loadKeys();
    recording = true;
    // A member's page: key state, Ring info, socket, messages, conversations, files, calls.
    for (const member of [owner, bob, carol]) {
      await member.call('GET', KEY_API_PATHS.state);
      await member.call('GET', '/api/rings/info.php');
      const { socket } = await joinedSocket(t, baseUrl, member);
      sockets.push(socket);
      // The page takes the stream token of its next connection, then reconnects with it.
      const spare = await socket.emitWithAck('renew_stream_token', { ringId: member.ringId });
      if (!spare.ok) throw new Error(`renew_stream_token refused: ${spare.error}`);
      const next = await connectSocket(baseUrl, spare.stream_token);
      sockets.push(next);
      // With the catch-up of the room it holds (the messages missed, in join_ring's answer).
      await next.emitWithAck('join_ring', {
        ringId: member.ringId,
        catchUp: [{ conversationId: 'room:general', since: 0 }],
      });
    }
    await carol.publish();
    await owner.shareAll();
    for (let i = 0; i < 3; i++) await owner.send(`message ${i}`);
    await bob.send('réponse');
    const dm = (await bob.call('POST', CHAT_API_PATHS.createDm, { peer_user_id: owner.memberId })).json()
      .conversation_id as string;
    await bob.send('en privé', { conversationId: dm });
    for (const member of [owner, bob]) {
      await member.call('GET', `${CHAT_API_PATHS.get}?conversation_id=room%3Ageneral&limit=50`);
      await member.call('GET', `${CHAT_API_PATHS.get}?conversation_id=room%3Ageneral&since=1&limit=50`);
      await member.call('GET', `${CHAT_API_PATHS.get}?conversation_id=room%3Ageneral&before=3&limit=50`);
      await member.call('GET', CHAT_API_PATHS.list);
      await member.call('POST', CHAT_API_PATHS.read, { conversation_id: 'room:general', seq: 2 });
      await member.call('GET', `${RING_FILES_API_PATHS.list}?folder=`);
      // The calls row is read by its primary key (an unknown call: 404).
      await member.call('GET', '/api/rings/call-config.php?callId=00000000-0000-4000-8000-000000000000');
      await member.call('POST', '/api/rings/mint-stream-token.php');
    }
    // The customer's dashboard and Ring statistics.
    const customer = bearer(await customerToken(t.ctx, customerId));
    await t.app.inject({ method: 'GET', url: '/api/customer/dashboard-data.php', headers: customer });
    await t.app.inject({ method: 'GET', url: '/api/customer/rings.php', headers: customer });
    // Every job once, as each instance runs them every few seconds to hourly.
    for (const job of buildJobs(t.ctx)) await job.run();
    recording = false;
  }

  /** Resolves once no query has been recorded for `ms` (recording must be on). */
  async function databaseQuietFor(ms: number): Promise<void> {
    for (let seen = -1; seen !== queries.length;) {
      seen = queries.length;
      await new Promise((resolve) => setTimeout(resolve, ms));
    }
  }

  /** The plan as text, and the growing tables it scans. */
  async function planOf(query: Query): Promise<{ text: string; scanned: string[] }> {
    if (TEST_DB_KIND === 'postgres') {
      return t.ctx.db.connection().execute(async (conn) => {
        await sql`set enable_seqscan = off`.execute(conn);
        try {
          const { rows } = await conn.executeQuery<{ 'QUERY PLAN': unknown }>(
            CompiledQuery.raw(`explain (format json) ${query.sql}`, [...query.parameters]),
          );
          const plan = rows[0]?.['QUERY PLAN'];
          return { text: JSON.stringify(plan), scanned: seqScansOf(plan) };
        } finally {
          await sql`set enable_seqscan = on`.execute(conn);
        }
      });
    }
    const { rows } = await t.ctx.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
    );
    return {
      text: rows.map((r) => r.detail).join('\n'),
      scanned: rows
        .map((r) => /^SCAN (\w+)/.exec(r.detail)?.[1])
        .filter((name): name is string => Boolean(name)),
    };
  }

  it('reconnects a page for one statement at the handshake and one at join_ring', async () => {
    const { members } = await ringWithMembers(t, 1);
    const member = members[0]!;
    const { socket } = await joinedSocket(t, baseUrl, member);
    sockets.push(socket);
    const spare = await socket.emitWithAck('renew_stream_token', { ringId: member.ringId });
    if (!spare.ok) throw new Error(`renew_stream_token refused: ${spare.error}`);
    socket.close();
    // What the first socket set going (its presence batches, its last-seen write) is done before
    // the handshake is recorded: the database has been quiet for longer than either waits.
    recording = true;
    await databaseQuietFor(LAST_SEEN_WRITE_DELAY_MS + PRESENCE_BATCH_INTERVAL_MS);
    queries.length = 0;
    const next = await connectSocket(baseUrl, spare.stream_token);
    sockets.push(next);
    const handshake = queries.splice(0);
    const joinCheck = vi.spyOn(RingRepository.prototype, 'findRingAccessBySession');
    try {
      expect(await next.emitWithAck('join_ring', { ringId: member.ringId })).toEqual({
        ok: true,
        ringId: member.ringId,
      });
      expect(joinCheck).toHaveBeenCalledTimes(1);
    } finally {
      recording = false;
      joinCheck.mockRestore();
    }
    // The stream token consumed under every condition (its Ring session live, its member active,
    // the Ring serviceable): nothing else before the socket opens.
    expect(handshake.map((q) => q.sql.trim().split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'update "sessions"',
    ]);
  });

  it('reads growing tables through an index in every query of a member’s page, its socket and the jobs', async () => {
    await scenario();
    const statements = new Map<string, Query>();
    for (const query of queries)
      if (
        /^\s*(select|update|delete|with)\b/i.test(query.sql) &&
        !/^\s*(begin|commit|set)\b/i.test(query.sql)
      )
        statements.set(query.sql, query);
    expect(statements.size).toBeGreaterThan(40);
    const unindexed: string[] = [];
    const ownerSubscription: string[] = [];
    for (const query of statements.values()) {
      const plan = await planOf(query);
      const scanned = plan.scanned.filter((table) => !SMALL_TABLES.has(table));
      if (scanned.length > 0) unindexed.push(`${[...new Set(scanned)].join(', ')} ← ${query.sql}`);
      // Every Ring request reads the owner's current subscription: found by customer, not by
      // walking every active subscription in expiry order.
      if (/from "subscriptions"[^()]*where "(subscriptions"\.")?customer_id" = /.test(query.sql))
        ownerSubscription.push(plan.text);
    }
    expect(unindexed).toEqual([]);
    expect(ownerSubscription.length).toBeGreaterThan(0);
    // SQLite has no statistics: it picks indexes by their shape, and took the expiry index for its
    // order. PostgreSQL chooses by statistics, which a test database of a few rows cannot have.
    if (TEST_DB_KIND === 'sqlite')
      for (const text of ownerSubscription)
        expect(text).toMatch(/subscriptions_current_idx \(customer_id=\?/);
  });
});
