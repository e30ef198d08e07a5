import type { BillingCycle } from '../constants';

/**
 * Prices of spec 1 §9, in integer cents: yearly is 10 × monthly (labelled -10%), the struck-through
 * comparison is 12 × monthly, and the video option is multiplied the same way. A video option of 0
 * means video is included. Only the server's result is ever charged.
 */
export interface PlanPrices {
  priceCents: number;
  videoOptionCents: number;
}

export interface PriceQuote {
  cycle: BillingCycle;
  /** Video is on: chosen, or included in the plan. */
  video: boolean;
  videoIncluded: boolean;
  /** What one month costs with the chosen options. */
  monthlyCents: number;
  /** What is charged for the period. */
  amountCents: number;
  /** 12 × monthly for a yearly period (shown struck through), the amount otherwise. */
  compareAtCents: number;
  months: 1 | 12;
}

export const YEARLY_MULTIPLIER = 10;
export const YEARLY_COMPARE_MULTIPLIER = 12;

export function quotePrice(plan: PlanPrices, cycle: BillingCycle, videoChosen: boolean): PriceQuote {
  if (!Number.isInteger(plan.priceCents) || plan.priceCents < 0) throw new Error('invalid plan price');
  if (!Number.isInteger(plan.videoOptionCents) || plan.videoOptionCents < 0)
    throw new Error('invalid video option');
  const videoIncluded = plan.videoOptionCents === 0;
  const video = videoIncluded || videoChosen;
  const monthlyCents = plan.priceCents + (videoChosen && !videoIncluded ? plan.videoOptionCents : 0);
  if (cycle === 'yearly') {
    return {
      cycle,
      video,
      videoIncluded,
      monthlyCents,
      amountCents: monthlyCents * YEARLY_MULTIPLIER,
      compareAtCents: monthlyCents * YEARLY_COMPARE_MULTIPLIER,
      months: 12,
    };
  }
  return {
    cycle,
    video,
    videoIncluded,
    monthlyCents,
    amountCents: monthlyCents,
    compareAtCents: monthlyCents,
    months: 1,
  };
}

/** The video option's price for a period: × 10 for a year. */
export function videoOptionForCycle(videoOptionCents: number, cycle: BillingCycle): number {
  return cycle === 'yearly' ? videoOptionCents * YEARLY_MULTIPLIER : videoOptionCents;
}

/** Adds calendar months in UTC, clamping to the last day (31 Jan + 1 month = 28/29 Feb). */
export function addMonths(from: Date, months: number): Date {
  const d = new Date(from.getTime());
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, lastDay));
  return d;
}

/** A short reference to quote to support: SR- and the last 10 hex digits of the payment id. */
export function paymentReference(paymentId: string): string {
  return `SR-${paymentId.replace(/-/g, '').slice(-10).toUpperCase()}`;
}
