import fs from 'node:fs';
import path from 'node:path';
import { MESSAGES, ZAdminStatsResponse, type TAdminStats } from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentsTable, SystemLogsTable } from '../../src/db/schema';
import { HOUR_MS, MINUTE_MS, DAY_MS, ManualClock } from '../../src/lib/clock';
import { newId } from '../../src/lib/ids';
import { storagePaths } from '../../src/lib/storage-paths';
import { buildTestApp, type TestApp } from '../build-test-app';
import { adminToken, bearer, buildAdmin, buildCustomer, buildRing, buildSubscription } from '../factories';

const URL = '/api/admin/stats.php';
// Half an hour into March: the previous month ended 30 minutes ago.
const NOW = '2026-03-01T00:30:00.000Z';
const ago = (ms: number) => new Date(Date.parse(NOW) - ms).toISOString();

describe('admin dashboard stats', () => {
  let t: TestApp;
  const clock = new ManualClock(NOW);
  let noModuleHeaders: Record<string, string>;

  const read = async (headers: Record<string, string>): Promise<TAdminStats> => {
    const res = await t.app.inject({ method: 'GET', url: URL, headers });
    expect(res.statusCode).toBe(200);
    return ZAdminStatsResponse.parse(res.json()).data;
  };

  beforeAll(async () => {
    t = await buildTestApp({ clock });
    const { ctx } = t;
    const db = ctx.db;
    // An admin without any module permission: the dashboard is always visible.
    const plain = await buildAdmin(ctx);
    noModuleHeaders = bearer(await adminToken(ctx, plain.id));

    // Six customers; only A holds a current subscription.
    const a = await buildCustomer(ctx, { created_at: '2026-03-01T00:10:00.000Z' });
    const b = await buildCustomer(ctx, { created_at: '2026-03-01T00:20:00.000Z' });
    const c = await buildCustomer(ctx, { created_at: '2026-02-15T12:00:00.000Z' });
    await buildCustomer(ctx, { created_at: '2026-01-31T00:00:00.000Z' }); // first day of the 30-day chart
    await buildCustomer(ctx, { created_at: '2026-01-30T23:59:59.999Z' }); // one day too old for it
    await buildCustomer(ctx, { created_at: '2025-06-01T08:00:00.000Z' });
    await buildSubscription(ctx, a.id);
    await buildSubscription(ctx, b.id, { starts_at: '2025-01-01T00:00:00.000Z', expires_at: ago(MINUTE_MS) }); // lapsed, not yet swept
    await buildSubscription(ctx, c.id, { status: 'cancelled' });

    // Rings: A's active Ring counts; A's inactive Ring and B's Ring (no current subscription) do not.
    const ringA = await buildRing(ctx, a.id, { withSubscription: false });
    await buildRing(ctx, a.id, { withSubscription: false, is_active: 0 });
    await buildRing(ctx, b.id, { withSubscription: false });

    const payment = (over: Partial<PaymentsTable>): PaymentsTable => ({
      id: newId(),
      customer_id: a.id,
      subscription_id: null,
      plan_id: null,
      plan_name: 'Professional',
      billing_cycle: 'monthly',
      video_enabled: 0,
      amount_cents: 0,
      currency: 'EUR',
      provider: 'stripe',
      status: 'completed',
      payment_type: 'subscription',
      transaction_id: null,
      provider_order_id: null,
      failure_reason: null,
      metadata: '{}',
      created_at: over.completed_at ?? NOW,
      updated_at: NOW,
      completed_at: null,
      ...over,
    });
    await db
      .insertInto('payments')
      .values([
        payment({ amount_cents: 1000, completed_at: '2026-03-01T00:00:00.000Z' }), // this month
        payment({ amount_cents: 2550, completed_at: '2026-02-28T23:59:59.999Z' }), // last month
        // Created in February, paid in March: counted when it was paid.
        payment({
          amount_cents: 199,
          created_at: '2026-02-27T10:00:00.000Z',
          completed_at: '2026-03-01T00:05:00.000Z',
        }),
        payment({ amount_cents: 9999, status: 'pending', created_at: NOW }),
        payment({ amount_cents: 4242, status: 'failed', created_at: NOW }),
        payment({ amount_cents: 500, completed_at: '2025-04-01T00:00:00.000Z' }), // oldest month of the chart
        payment({ amount_cents: 700, completed_at: '2025-03-31T23:59:59.999Z' }), // before it
        payment({ amount_cents: 300, created_at: '2026-01-10T09:00:00.000Z', completed_at: null }), // legacy row without completion time
      ])
      .execute();

    const conversationId = newId();
    await db
      .insertInto('conversations')
      .values({
        id: conversationId,
        ring_id: ringA.id,
        kind: 'room',
        conversation_key: 'room:general',
        created_at: '2025-01-01T00:00:00.000Z',
        last_seq: 0,
      })
      .execute();
    let seq = 0;
    const message = (at: string) => ({
      seq: ++seq,
      client_message_id: newId(),
      epoch: 1,
      id: newId(),
      ring_id: ringA.id,
      conversation_id: conversationId,
      sender_member_id: null,
      content: 'chiffré',
      message_type: 'text',
      client_encrypted: 1 as const,
      is_ephemeral: 0 as const,
      expires_at: null,
      created_at: at,
    });
    await db
      .insertInto('messages')
      .values([message(ago(HOUR_MS)), message(ago(29 * DAY_MS)), message(ago(30 * DAY_MS + MINUTE_MS))])
      .execute();

    await db.deleteFrom('system_logs').execute();
    const log = (
      level: SystemLogsTable['level'],
      category: string,
      message: string,
      at: string,
    ): SystemLogsTable => ({
      id: newId(),
      level,
      category,
      message,
      details: null,
      ip_address: null,
      user_agent: null,
      user_id: null,
      created_at: at,
    });
    await db
      .insertInto('system_logs')
      .values([
        log('error', 'payment', 'Paiement refusé', ago(HOUR_MS)),
        log('critical', 'system', 'Disque plein', ago(24 * HOUR_MS - MINUTE_MS)),
        log('error', 'system', 'Ancienne erreur', ago(24 * HOUR_MS + MINUTE_MS)),
        log('warning', 'auth', 'Échec de connexion administrateur', ago(2 * HOUR_MS)),
        log('warning', 'auth', 'Échec de connexion client', ago(10 * HOUR_MS)),
        log('warning', 'auth', 'Échec de connexion à un Ring', ago(30 * HOUR_MS)),
        log('warning', 'auth', 'Jeton expiré', ago(3 * HOUR_MS)),
        log('info', 'auth', 'Échec de connexion simulé', ago(4 * HOUR_MS)),
        log('info', 'admin', 'Plan modifié', ago(MINUTE_MS)),
      ])
      .execute();

    // Files under DATA_DIR are counted (written before the first read: the size is cached for 60 s).
    const ringDir = storagePaths.ringFiles(ctx.config, ringA.id);
    fs.mkdirSync(path.join(ringDir, 'nested'), { recursive: true });
    fs.writeFileSync(path.join(ringDir, 'nested', 'blob.bin'), Buffer.alloc(200_000));
  });
  afterAll(() => t.close());

  it('needs an admin token', async () => {
    const res = await t.app.inject({ method: 'GET', url: URL });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ success: false, error: MESSAGES.notAuthenticated });
    const wrong = await t.app.inject({ method: 'GET', url: URL, headers: bearer('not-a-token') });
    expect(wrong.statusCode).toBe(401);
  });

  it('gives real figures to an admin without any module permission', async () => {
    const s = await read(noModuleHeaders);
    expect(s.totalCustomers).toBe(6);
    expect(s.activeSubscriptions).toBe(1);
    expect(s.conversionRate).toBe(16.7);
    expect(s.monthlyRevenue).toBe(11.99);
    expect(s.transactionsThisMonth).toBe(2);
    expect(s.totalRevenue).toBe(52.49);
    expect(s.activeRings).toBe(1);
    expect(s.messagesLastMonth).toBe(2);
    expect(s.errors24h).toBe(2);
    expect(s.failedLogins24h).toBe(2);
    expect(s.https).toBe(false);
    expect(s.lastBackupAt).toBeNull();
    expect(s.storageUsed).toBeGreaterThanOrEqual(200_000);
    expect(s.uptime).toBeGreaterThanOrEqual(0);
  });

  it('charts twelve months of revenue and thirty days of new customers, zero-filled, oldest first', async () => {
    const s = await read(noModuleHeaders);
    expect(s.revenueByMonth.map((m) => m.month)).toEqual([
      '2025-04',
      '2025-05',
      '2025-06',
      '2025-07',
      '2025-08',
      '2025-09',
      '2025-10',
      '2025-11',
      '2025-12',
      '2026-01',
      '2026-02',
      '2026-03',
    ]);
    const byMonth = Object.fromEntries(s.revenueByMonth.map((m) => [m.month, m.amount]));
    expect(byMonth).toMatchObject({
      '2025-04': 5,
      '2025-05': 0,
      '2026-01': 3,
      '2026-02': 25.5,
      '2026-03': 11.99,
    });
    expect(s.revenueByMonth.filter((m) => m.amount > 0)).toHaveLength(4);

    expect(s.newCustomersByDay).toHaveLength(30);
    expect(s.newCustomersByDay[0]).toEqual({ date: '2026-01-31', count: 1 });
    expect(s.newCustomersByDay[29]).toEqual({ date: '2026-03-01', count: 2 });
    expect(s.newCustomersByDay.find((d) => d.date === '2026-02-15')?.count).toBe(1);
    expect(s.newCustomersByDay.reduce((sum, d) => sum + d.count, 0)).toBe(4);
  });

  it('lists the ten newest log entries, newest first', async () => {
    const s = await read(noModuleHeaders);
    expect(s.recentActivity).toHaveLength(9);
    expect(s.recentActivity[0]).toMatchObject({
      level: 'info',
      category: 'admin',
      message: 'Plan modifié',
      created_at: ago(MINUTE_MS),
    });
    expect(s.recentActivity[1]).toMatchObject({ level: 'error', message: 'Paiement refusé' });
    const times = s.recentActivity.map((a) => a.created_at);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('moves its 24-hour windows with the clock', async () => {
    clock.advance(2 * HOUR_MS); // 02:30: the payment error (now 3 h old) stays, the critical one (24 h 01 min) leaves
    try {
      const s = await read(noModuleHeaders);
      expect(s.errors24h).toBe(1);
      expect(s.failedLogins24h).toBe(2);
    } finally {
      clock.set(NOW);
    }
  });

  it('reports response times measured by the server, the newest backup, and caches the storage size', async () => {
    const first = await read(noModuleHeaders);
    const again = await read(noModuleHeaders);
    expect(again.responseTime.samples).toBeGreaterThan(0);
    expect(again.responseTime.p95).toBeGreaterThanOrEqual(again.responseTime.p50);

    const backups = storagePaths.backups(t.ctx.config);
    fs.mkdirSync(backups, { recursive: true });
    const older = new Date('2026-02-20T10:00:00.000Z');
    const newer = new Date('2026-02-27T18:45:00.000Z');
    fs.writeFileSync(path.join(backups, 'backup-a.zip'), 'a');
    fs.utimesSync(path.join(backups, 'backup-a.zip'), older, older);
    fs.writeFileSync(path.join(backups, 'backup-b.zip'), Buffer.alloc(300_000));
    fs.utimesSync(path.join(backups, 'backup-b.zip'), newer, newer);
    fs.writeFileSync(path.join(backups, 'notes.txt'), 'not a backup'); // newest file, not a .zip

    const after = await read(noModuleHeaders);
    expect(after.lastBackupAt).toBe(newer.toISOString());
    // Walked at most once a minute: the new 300 kB are not seen yet.
    expect(after.storageUsed).toBe(first.storageUsed);
  });
});

describe('admin dashboard stats on an empty installation behind HTTPS', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({
      clock: new ManualClock('2027-01-15T09:00:00.000Z'),
      config: { publicUrl: 'https://secure.example.com' },
    });
  });
  afterAll(() => t.close());

  it('answers zeros and zero-filled series', async () => {
    const root = await t.ctx.admins.findByUsername('root');
    const res = await t.app.inject({
      method: 'GET',
      url: URL,
      headers: bearer(await adminToken(t.ctx, root!.id)),
    });
    expect(res.statusCode).toBe(200);
    const s = ZAdminStatsResponse.parse(res.json()).data;
    expect(s).toMatchObject({
      totalCustomers: 0,
      activeSubscriptions: 0,
      conversionRate: 0,
      monthlyRevenue: 0,
      totalRevenue: 0,
      transactionsThisMonth: 0,
      activeRings: 0,
      messagesLastMonth: 0,
      lastBackupAt: null,
      https: true,
    });
    expect(s.revenueByMonth).toHaveLength(12);
    expect(s.revenueByMonth[0]).toEqual({ month: '2026-02', amount: 0 });
    expect(s.revenueByMonth[11]).toEqual({ month: '2027-01', amount: 0 });
    expect(s.newCustomersByDay).toHaveLength(30);
    expect(s.newCustomersByDay[0]).toEqual({ date: '2026-12-17', count: 0 });
    expect(s.newCustomersByDay[29]).toEqual({ date: '2027-01-15', count: 0 });
    expect(s.newCustomersByDay.every((d) => d.count === 0)).toBe(true);
  });
});
