import type { BillingCycle } from '../constants';
import { formatEuros } from '../plans/money';
import { YEARLY_COMPARE_MULTIPLIER, YEARLY_MULTIPLIER, quotePrice } from './pricing';

/**
 * What the yearly price saves, said honestly: a year costs 10 months (spec 1 §9), so two months
 * are free — a 16,7 % saving, not "-10%".
 */
export const YEARLY_OFFER_LABEL = `${YEARLY_COMPARE_MULTIPLIER - YEARLY_MULTIPLIER} mois offerts`;

export const PERIOD_LABELS: Record<BillingCycle, 'mois' | 'an'> = { monthly: 'mois', yearly: 'an' };

/** A subscription as it was bought: the plan's prices, the cycle and whether the video option was taken. */
export interface BilledSubscription {
  /** The plan's monthly price, in euros. */
  price: number;
  /** The video option's monthly price, in euros; 0 means video is included in the plan. */
  videoOption: number;
  cycle: BillingCycle;
  /** The customer took the paid video option (subscriptions.video_enabled). */
  videoChosen: boolean;
}

export interface BillingLabel {
  /** "398,00 € / an": what each period is billed, the option included. */
  amount: string;
  /** "option vidéo incluse (+9,90 € / mois)", "vidéo comprise dans le plan" or "sans option vidéo". */
  video: string;
  /** "2 mois offerts" for a yearly subscription, null for a monthly one. */
  offer: string | null;
  /** amount · video, for one line: "398,00 € / an · option vidéo incluse (+9,90 € / mois)". */
  label: string;
}

/** "+4,90 € / mois", the video option's price beside a plan (site, /subscribe, back office). */
export function videoOptionPriceLabel(videoOptionEuros: number, period: 'mois' | 'an' = 'mois'): string {
  return `+${formatEuros(videoOptionEuros)} / ${period}`;
}

/**
 * What a subscription bills, from its row and its plan's prices: the amount per period with the
 * video option when it was bought, and what the option adds each month.
 */
export function describeBilling(sub: BilledSubscription): BillingLabel {
  const quote = quotePrice(
    { priceCents: Math.round(sub.price * 100), videoOptionCents: Math.round(sub.videoOption * 100) },
    sub.cycle,
    sub.videoChosen,
  );
  const amount = `${formatEuros(quote.amountCents / 100)} / ${PERIOD_LABELS[sub.cycle]}`;
  const video = quote.videoIncluded
    ? 'vidéo comprise dans le plan'
    : sub.videoChosen
      ? `option vidéo incluse (${videoOptionPriceLabel(sub.videoOption)})`
      : 'sans option vidéo';
  return {
    amount,
    video,
    offer: sub.cycle === 'yearly' ? YEARLY_OFFER_LABEL : null,
    label: `${amount} · ${video}`,
  };
}
