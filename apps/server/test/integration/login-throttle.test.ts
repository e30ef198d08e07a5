import type * as Argon2 from '@node-rs/argon2';
import { MESSAGES } from '@securering/contract';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/lib/clock';
import { buildTestApp, testConfig, type TestApp } from '../build-test-app';
import { buildCustomer, buildRing, buildRingMember } from '../factories';

// Every password check goes through argon2's verify: count them.
const argon = vi.hoisted(() => ({ verifications: 0 }));
vi.mock('@node-rs/argon2', async (importOriginal) => {
  const actual = await importOriginal<typeof Argon2>();
  return {
    ...actual,
    verify: (...args: Parameters<typeof actual.verify>) => {
      argon.verifications += 1;
      return actual.verify(...args);
    },
  };
});

describe('login throttling: reserved before the password check, one budget per person', () => {
  let t: TestApp;
  // A fixed clock keeps every attempt in one window.
  const clock = new ManualClock('2026-11-22T10:00:30.000Z');
  const limit = 10;

  beforeAll(async () => {
    // The per-IP limit of public endpoints is raised: only the per-person budget is under test.
    t = await buildTestApp({
      clock,
      config: { rateLimits: { ...testConfig().rateLimits, publicPerMinute: 10_000 } },
    });
  });
  afterAll(() => t.close());
  beforeEach(() => {
    argon.verifications = 0;
  });

  const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url, payload });
  const customerLogin = (email: string, password: string) =>
    post('/api/auth/customer-login.php', { email, password });
  const ringLogin = (payload: object) => post('/api/rings/login.php', payload);

  it('checks at most 10 passwords out of 40 parallel wrong ones; the others get 429', async () => {
    const customer = await buildCustomer(t.ctx);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => customerLogin(customer.email, `Mauvais-${i}`)),
    );
    const statuses = results.map((r) => r.statusCode);
    expect(argon.verifications).toBeLessThanOrEqual(limit);
    expect(statuses.filter((s) => s === 401)).toHaveLength(limit);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40 - limit);
    const refused = results.find((r) => r.statusCode === 429)!;
    expect(refused.json().error).toBe(MESSAGES.tooManyRequests);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // The right password is refused too until the window ends, and checks nothing.
    argon.verifications = 0;
    expect((await customerLogin(customer.email, customer.password)).statusCode).toBe(429);
    expect(argon.verifications).toBe(0);
  });

  it('holds for parallel Ring logins by invite code too', async () => {
    const owner = await buildCustomer(t.ctx);
    const ring = await buildRing(t.ctx, owner.id);
    const member = await buildRingMember(t.ctx, ring.id, { email: 'parallele@example.com' });
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        ringLogin({ invite_code: member.invite_code, password: `Faux-${i}` }),
      ),
    );
    expect(argon.verifications).toBeLessThanOrEqual(limit);
    expect(results.filter((r) => r.statusCode === 429)).toHaveLength(40 - limit);
  });

  it('spends one budget across customer login, Ring login by email and by the owner’s invite code', async () => {
    const customer = await buildCustomer(t.ctx);
    const ring = await buildRing(t.ctx, customer.id);
    const owner = await buildRingMember(t.ctx, ring.id, {
      role: 'owner',
      customer_id: customer.id,
      email: customer.email,
      password_hash: null,
    });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await customerLogin(customer.email, 'Mauvais-1')).statusCode);
    for (let i = 0; i < 3; i++)
      statuses.push(
        (await ringLogin({ email: customer.email.toUpperCase(), password: 'Mauvais-1' })).statusCode,
      );
    for (let i = 0; i < 3; i++)
      statuses.push((await ringLogin({ invite_code: owner.invite_code, password: 'Mauvais-1' })).statusCode);
    expect(statuses).toEqual(Array(10).fill(401));
    // The budget is spent, whichever way the person tries next — even with the right password.
    expect((await customerLogin(customer.email, customer.password)).statusCode).toBe(429);
    expect((await ringLogin({ email: customer.email, password: customer.password })).statusCode).toBe(429);
    expect(
      (await ringLogin({ invite_code: owner.invite_code, password: customer.password })).statusCode,
    ).toBe(429);
  });

  it('shares the budget of a member’s email between Ring login by email and by invite code', async () => {
    const customer = await buildCustomer(t.ctx);
    const ring = await buildRing(t.ctx, customer.id);
    const member = await buildRingMember(t.ctx, ring.id, { email: 'membre.budget@example.com' });
    for (let i = 0; i < 5; i++) await ringLogin({ email: member.email, password: 'Mauvais-1' });
    for (let i = 0; i < 5; i++) await ringLogin({ invite_code: member.invite_code, password: 'Mauvais-1' });
    expect((await ringLogin({ invite_code: member.invite_code, password: member.password })).statusCode).toBe(
      429,
    );
    // A customer login with that address draws on the same budget.
    expect((await customerLogin(member.email!, 'Mauvais-1')).statusCode).toBe(429);
  });

  it('gives the budget back on success', async () => {
    const customer = await buildCustomer(t.ctx);
    for (let i = 0; i < limit - 1; i++) await customerLogin(customer.email, 'Mauvais-1');
    expect((await customerLogin(customer.email, customer.password)).statusCode).toBe(200);
    for (let i = 0; i < limit; i++)
      expect((await customerLogin(customer.email, 'Mauvais-1')).statusCode).toBe(401);
    expect((await customerLogin(customer.email, 'Mauvais-1')).statusCode).toBe(429);
  });
});
