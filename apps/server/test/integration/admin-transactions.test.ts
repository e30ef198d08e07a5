import { ZAdminTransactionsResponse, type TAdminTransaction } from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/app-context';
import type { PaymentsTable } from '../../src/db/schema';
import { newId } from '../../src/lib/ids';
import { TEST_ADMIN, buildTestApp, type TestApp } from '../build-test-app';
import { adminToken, bearer, buildAdmin, buildCustomer, buildSubscription } from '../factories';

async function buildPayment(ctx: AppContext, customerId: string, overrides: Partial<PaymentsTable> = {}) {
  const row: PaymentsTable = {
    id: newId(),
    customer_id: customerId,
    subscription_id: null,
    plan_id: null,
    plan_name: 'Professional',
    billing_cycle: 'monthly',
    video_enabled: 0,
    amount_cents: 2990,
    currency: 'EUR',
    provider: 'stripe',
    status: 'completed',
    payment_type: 'subscription',
    transaction_id: `tx_${newId().slice(0, 8)}`,
    provider_order_id: null,
    failure_reason: null,
    metadata: '{}',
    created_at: '2026-03-10T10:00:00.000Z',
    updated_at: '2026-03-10T10:00:00.000Z',
    completed_at: null,
    ...overrides,
  };
  await ctx.db.insertInto('payments').values(row).execute();
  return row;
}

describe('admin transactions', () => {
  let t: TestApp;
  let root: Record<string, string>;
  let viewer: Record<string, string>;
  let outsider: Record<string, string>;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await buildTestApp();
    const rootId = (await t.ctx.admins.findByUsername(TEST_ADMIN.username))!.id;
    root = bearer(await adminToken(t.ctx, rootId));
    viewer = bearer(
      await adminToken(t.ctx, (await buildAdmin(t.ctx, { permissions: [['transactions', 'view']] })).id),
    );
    outsider = bearer(
      await adminToken(t.ctx, (await buildAdmin(t.ctx, { permissions: [['plans', 'view']] })).id),
    );

    const alice = await buildCustomer(t.ctx, {
      first_name: 'Alice',
      last_name: 'Martin',
      email: 'alice@example.com',
    });
    const bob = await buildCustomer(t.ctx, {
      first_name: '=cmd|',
      last_name: 'Dupont; "Bob"',
      email: 'bob@example.com',
    });
    const ended = await buildSubscription(t.ctx, bob.id, {
      status: 'expired',
      expires_at: '2026-02-01T00:00:00.000Z',
    });
    ids.a1 = (
      await buildPayment(t.ctx, alice.id, { created_at: '2026-03-10T10:00:00.000Z', provider: 'stripe' })
    ).id;
    ids.a2 = (
      await buildPayment(t.ctx, alice.id, {
        created_at: '2026-03-12T23:30:00.000Z',
        provider: 'paypal',
        status: 'failed',
        amount_cents: 29900,
        billing_cycle: 'yearly',
        transaction_id: null,
        provider_order_id: 'ORDER-9',
      })
    ).id;
    ids.b1 = (
      await buildPayment(t.ctx, bob.id, {
        created_at: '2026-01-05T08:00:00.000Z',
        provider: 'nowpayments',
        subscription_id: ended.id,
        amount_cents: 123456,
        transaction_id: 'NP-1',
      })
    ).id;
    ids.b2 = (
      await buildPayment(t.ctx, bob.id, {
        created_at: '2026-03-20T12:00:00.000Z',
        provider: 'test',
        status: 'refunded',
        currency: 'usd',
      })
    ).id;
  });
  afterAll(() => t.close());

  const get = (url: string, headers: Record<string, string>) => t.app.inject({ method: 'GET', url, headers });
  const list = async (
    query = '',
    headers = viewer,
  ): Promise<{ data: TAdminTransaction[]; total: number }> => {
    const res = await get(`/api/admin/transactions.php${query}`, headers);
    expect(res.statusCode, res.body).toBe(200);
    const body = ZAdminTransactionsResponse.parse(res.json());
    return { data: body.data, total: body.meta.total };
  };

  it('needs an admin token and the transactions:view permission', async () => {
    const none = await get('/api/admin/transactions.php', {});
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ success: false, error: 'Non authentifié' });
    expect((await get('/api/admin/transactions.php', outsider)).statusCode).toBe(403);
    expect((await get('/api/admin/transactions.php?format=csv', outsider)).statusCode).toBe(403);
    expect((await get('/api/admin/transactions.php?format=csv', {})).statusCode).toBe(401);
    expect((await get('/api/admin/transactions.php', root)).statusCode).toBe(200);
  });

  it('lists payments newest first with the customer joined and amounts in euros', async () => {
    const { data, total } = await list();
    expect(total).toBe(4);
    expect(data.map((d) => d.id)).toEqual([ids.b2, ids.a2, ids.a1, ids.b1]);
    expect(data.find((d) => d.id === ids.a2)).toMatchObject({
      customer_name: 'Alice Martin',
      customer_email: 'alice@example.com',
      amount: 299,
      currency: 'EUR',
      payment_provider: 'paypal',
      transaction_id: null,
      status: 'failed',
      computed_status: 'failed',
      plan_name: 'Professional',
      billing_cycle: 'yearly',
    });
    expect(data.find((d) => d.id === ids.b1)).toMatchObject({
      amount: 1234.56,
      computed_status: 'completed_expired',
      payment_provider: 'nowpayments',
    });
    expect(data.find((d) => d.id === ids.b2)).toMatchObject({ currency: 'USD', computed_status: 'refunded' });
  });

  it('filters by gateway, status and dates, and pages', async () => {
    expect((await list('?gateway=stripe')).data.map((d) => d.id)).toEqual([ids.a1]);
    expect((await list('?gateway=paypal')).data.map((d) => d.id)).toEqual([ids.a2]);
    expect((await list('?gateway=crypto')).data.map((d) => d.id)).toEqual([ids.b1]);
    expect((await list('?gateway=all')).total).toBe(4);
    expect((await list('?status=completed')).data.map((d) => d.id)).toEqual([ids.a1, ids.b1]);
    expect((await list('?from=2026-03-01&to=2026-03-12')).data.map((d) => d.id)).toEqual([ids.a2, ids.a1]);
    expect((await list('?from=2026-03-13')).data.map((d) => d.id)).toEqual([ids.b2]);
    const page = await list('?limit=2&offset=1');
    expect(page.data.map((d) => d.id)).toEqual([ids.a2, ids.a1]);
    expect(page.total).toBe(4);
    const capped = ZAdminTransactionsResponse.parse(
      (await get('/api/admin/transactions.php?limit=9999', viewer)).json(),
    );
    expect(capped.meta.limit).toBe(500);

    for (const [query, message] of [
      ['?gateway=bitcoin', 'Passerelle inconnue'],
      ['?status=paid', 'Statut inconnu'],
      ['?from=2026-13-45', 'Date invalide (AAAA-MM-JJ)'],
      ['?from=hier', 'Date invalide (AAAA-MM-JJ)'],
      ['?from=2026-03-10&to=2026-03-01', 'La date de début doit précéder la date de fin'],
      ['?limit=0', 'Pagination invalide'],
      ['?offset=-1', 'Pagination invalide'],
      ['?limit=abc', 'Pagination invalide'],
    ] as const) {
      const res = await get(`/api/admin/transactions.php${query}`, viewer);
      expect(res.statusCode, query).toBe(400);
      expect(res.json()).toEqual({ success: false, error: message });
    }
  });

  it('exports a real CSV download: headers, BOM, French values, RFC 4180 quoting, same filters', async () => {
    const res = await get('/api/admin/transactions.php?format=csv', viewer);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="transactions-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const raw = res.rawPayload.toString('utf8');
    expect(raw.charCodeAt(0)).toBe(0xfeff);
    const lines = raw.slice(1).split('\r\n');
    expect(lines[0]).toBe('Date;Client;Email;Plan;Période;Montant;Devise;Passerelle;Statut;Référence');
    expect(lines).toHaveLength(6); // header, 4 rows, trailing empty string after the last CRLF
    expect(lines[5]).toBe('');
    expect(lines[2]).toBe(
      '13/03/2026 00:30;Alice Martin;alice@example.com;Professional;Annuel;299,00;EUR;PayPal;Échec;ORDER-9',
    );
    expect(lines[4]).toBe(
      `05/01/2026 09:00;"'=cmd| Dupont; ""Bob""";bob@example.com;Professional;Mensuel;1234,56;EUR;Crypto (NOWPayments);Payé (Expiré);NP-1`,
    );
    expect(lines[1]).toContain(';USD;Test;Remboursé;');

    const stripeOnly = await get('/api/admin/transactions.php?format=csv&gateway=stripe', viewer);
    const stripeLines = stripeOnly.rawPayload.toString('utf8').split('\r\n');
    expect(stripeLines).toHaveLength(3);
    expect(stripeLines[1]).toContain(';Stripe;Payé;');

    const audit = await t.ctx.db
      .selectFrom('system_logs')
      .selectAll()
      .where('message', '=', 'Export des transactions (CSV)')
      .execute();
    expect(audit.length).toBe(2);
  });

  it('exports without the list limit', async () => {
    const customer = await buildCustomer(t.ctx);
    const rows = Array.from({ length: 620 }, (_, i) => ({
      id: newId(),
      customer_id: customer.id,
      subscription_id: null,
      plan_id: null,
      plan_name: 'Starter',
      billing_cycle: 'monthly' as const,
      video_enabled: 0 as const,
      amount_cents: 990,
      currency: 'EUR',
      provider: 'manual',
      status: 'completed' as const,
      payment_type: 'subscription' as const,
      transaction_id: `bulk-${i}`,
      provider_order_id: null,
      failure_reason: null,
      metadata: '{}',
      created_at: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(),
      updated_at: new Date(Date.UTC(2025, 0, 1)).toISOString(),
      completed_at: null,
    }));
    for (let i = 0; i < rows.length; i += 100) {
      await t.ctx.db
        .insertInto('payments')
        .values(rows.slice(i, i + 100))
        .execute();
    }
    const csv = (
      await get('/api/admin/transactions.php?format=csv&gateway=manual', viewer)
    ).rawPayload.toString('utf8');
    expect(csv.split('\r\n').filter(Boolean)).toHaveLength(621);
    const json = await list('?gateway=manual');
    expect(json.data).toHaveLength(100);
    expect(json.total).toBe(620);
  });
});
