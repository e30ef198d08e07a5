import { describe, expect, it } from 'vitest';
import { addMonths, paymentReference, quotePrice, videoOptionForCycle } from './pricing';
import { computePaymentStatus, computeSubscriptionStatus, daysRemaining } from './status';

const pro = { priceCents: 2990, videoOptionCents: 990 };
const enterprise = { priceCents: 9900, videoOptionCents: 0 };

describe('quotePrice (spec 1 §9)', () => {
  it('charges the monthly price, plus the video option when chosen', () => {
    expect(quotePrice(pro, 'monthly', false)).toMatchObject({
      amountCents: 2990,
      compareAtCents: 2990,
      video: false,
      months: 1,
    });
    expect(quotePrice(pro, 'monthly', true)).toMatchObject({ amountCents: 3980, video: true });
  });

  it('charges 10 × monthly for a year, compared with 12 × monthly, video option × 10 as well', () => {
    expect(quotePrice(pro, 'yearly', false)).toMatchObject({
      amountCents: 29900,
      compareAtCents: 35880,
      months: 12,
    });
    expect(quotePrice(pro, 'yearly', true)).toMatchObject({ amountCents: 39800, compareAtCents: 47760 });
    expect(videoOptionForCycle(990, 'yearly')).toBe(9900);
    expect(videoOptionForCycle(990, 'monthly')).toBe(990);
  });

  it('treats a video option of 0 as video included, never charged', () => {
    expect(quotePrice(enterprise, 'monthly', false)).toMatchObject({
      amountCents: 9900,
      video: true,
      videoIncluded: true,
    });
    expect(quotePrice(enterprise, 'yearly', true)).toMatchObject({ amountCents: 99000, video: true });
  });

  it('refuses impossible plan prices', () => {
    expect(() => quotePrice({ priceCents: -1, videoOptionCents: 0 }, 'monthly', false)).toThrow();
    expect(() => quotePrice({ priceCents: 9.5, videoOptionCents: 0 }, 'monthly', false)).toThrow();
  });
});

describe('addMonths', () => {
  it('adds calendar months in UTC and clamps month ends', () => {
    expect(addMonths(new Date('2026-01-31T10:00:00Z'), 1).toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(addMonths(new Date('2028-01-31T10:00:00Z'), 1).toISOString()).toBe('2028-02-29T10:00:00.000Z');
    expect(addMonths(new Date('2026-11-22T18:00:00Z'), 12).toISOString()).toBe('2027-11-22T18:00:00.000Z');
    expect(addMonths(new Date('2026-12-15T00:00:00Z'), 1).toISOString()).toBe('2027-01-15T00:00:00.000Z');
  });
});

describe('statuses (spec 3 §4)', () => {
  const now = new Date('2026-11-22T12:00:00Z');
  it('derives the subscription status from its state and end date', () => {
    expect(computeSubscriptionStatus({ status: 'active', expires_at: '2026-12-01T00:00:00Z' }, now)).toBe(
      'active',
    );
    expect(computeSubscriptionStatus({ status: 'active', expires_at: '2026-11-22T11:59:59Z' }, now)).toBe(
      'expired',
    );
    expect(computeSubscriptionStatus({ status: 'suspended', expires_at: '2027-01-01T00:00:00Z' }, now)).toBe(
      'suspended',
    );
    expect(computeSubscriptionStatus({ status: 'cancelled', expires_at: '2027-01-01T00:00:00Z' }, now)).toBe(
      'cancelled',
    );
  });

  it('counts remaining days rounded up', () => {
    expect(daysRemaining('2026-11-23T12:00:00Z', now)).toBe(1);
    expect(daysRemaining('2026-11-23T12:00:01Z', now)).toBe(2);
    expect(daysRemaining('2026-11-20T00:00:00Z', now)).toBe(0);
  });

  it('shows a completed payment of an ended subscription as completed_expired', () => {
    expect(
      computePaymentStatus('completed', { status: 'active', expires_at: '2027-01-01T00:00:00Z' }, now),
    ).toBe('completed');
    expect(
      computePaymentStatus('completed', { status: 'expired', expires_at: '2026-01-01T00:00:00Z' }, now),
    ).toBe('completed_expired');
    expect(computePaymentStatus('completed', null, now)).toBe('completed');
    expect(computePaymentStatus('failed', null, now)).toBe('failed');
  });

  it('gives short payment references', () => {
    expect(paymentReference('01a2b3c4-d5e6-7f80-9123-456789abcdef')).toBe('SR-6789ABCDEF');
  });
});
