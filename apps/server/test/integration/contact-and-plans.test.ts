import { ZPlansResponse } from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock';
import { buildTestApp, type TestApp } from '../build-test-app';
import { mailsTo } from '../factories';

describe('contact form and public plans', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({
      // A fixed clock keeps every counted request in one rate-limit window.
      clock: new ManualClock('2026-11-22T10:00:30.000Z'),
      config: { rateLimits: { loginFailures: 10, loginWindowMs: 900_000, publicPerMinute: 5 } },
    });
  });
  afterAll(() => t.close());

  const contact = (payload: object, ip = '10.1.1.1') =>
    t.app.inject({ method: 'POST', url: '/api/contact.php', payload, remoteAddress: ip });
  const valid = {
    name: 'Jean Dupont',
    email: 'Jean@Example.com',
    subject: 'Devis',
    message: 'Bonjour, je voudrais un devis pour 40 personnes.',
  };

  it.each([
    [{ name: '' }, 'Le nom est requis'],
    [{ email: 'jean' }, 'Email invalide'],
    [{ subject: ' ' }, 'Le sujet est requis'],
    [{ message: 'Trop court' + ' ' }, 'Le message doit contenir au moins 10 caractères'],
  ])('refuses %j with "%s"', async (override, message) => {
    const res = await contact(
      { ...valid, ...override, message: 'message' in override ? 'court' : valid.message },
      '10.2.2.2',
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, error: message });
  });

  it('stores the message, notifies contact_email and acknowledges the sender', async () => {
    const res = await contact(valid);
    expect(res.json()).toEqual({ success: true, message: 'Message envoyé' });
    const stored = await t.ctx.db.selectFrom('contact_messages').selectAll().executeTakeFirstOrThrow();
    expect(stored).toMatchObject({
      name: 'Jean Dupont',
      email: 'jean@example.com',
      subject: 'Devis',
      ip_address: '10.1.1.1',
    });
    const team = await mailsTo(t.ctx, 'contact@securering.fr');
    expect(team[0]?.subject).toBe('[Contact] Devis');
    expect(team[0]?.body_text).toContain('Bonjour, je voudrais un devis');
    const ack = await mailsTo(t.ctx, 'jean@example.com');
    expect(ack[0]?.body_text).toContain('24 heures ouvrables');
  });

  it('limits contact messages per IP', async () => {
    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push((await contact(valid, '10.3.3.3')).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
  });

  it('limits each anonymous endpoint per IP', async () => {
    const calls: Array<[string, object]> = [
      ['/api/auth/register.php', { email: 'x@example.com' }],
      ['/api/auth/customer-login.php', { email: 'x@example.com', password: 'y' }],
      ['/api/auth/resend-verification.php', { email: 'x@example.com' }],
      ['/api/auth/forgot-password.php', { email: 'x@example.com' }],
      ['/api/auth/reset-password.php', { token: 't', password: 'Secret123' }],
      ['/api/admin/auth/login.php', { username: 'x', password: 'y' }],
    ];
    for (const [url, payload] of calls) {
      const statuses = [];
      for (let i = 0; i < 6; i++) {
        statuses.push(
          (await t.app.inject({ method: 'POST', url, payload, remoteAddress: '10.4.4.4' })).statusCode,
        );
      }
      expect(statuses.slice(0, 5)).not.toContain(429);
      expect(statuses[5]).toBe(429);
    }
  });

  it('lists active plans only, priced in euros per month', async () => {
    await t.ctx.db.updateTable('plans').set({ is_active: 0 }).where('slug', '=', 'starter').execute();
    const res = await t.app.inject({ method: 'GET', url: '/api/subscriptions/plans.php' });
    const body = ZPlansResponse.parse(res.json());
    expect(body.data.map((p) => p.name)).toEqual(['Professional', 'Enterprise']);
    expect(body.data[0]).toMatchObject({
      price: 29.9,
      video_option: 9.9,
      max_users: 50,
      storage_gb: 50,
      popular: true,
      active: true,
    });
    expect(body.data[1]).toMatchObject({
      max_users: -1,
      video_option: 0,
      encryption_levels: ['basic', 'standard', 'high', 'military'],
    });
    // Stored as the back office writes it, served with French typography.
    expect(body.data[1]!.features).toContain('Espace disque\u202f: 500 Go');
  });
});
