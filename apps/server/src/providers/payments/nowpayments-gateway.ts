import { createHmac } from 'node:crypto';
import type { CryptoCurrency } from '@securering/contract';
import { safeEqual } from '../../lib/tokens';
import { fetchJson } from './provider-error';
import type { NowPaymentsSettings } from './payment-settings';

/** NOWPayments tickers for the coins /subscribe offers. */
export const NOWPAYMENTS_TICKERS: Record<CryptoCurrency, string> = {
  BTC: 'btc',
  ETH: 'eth',
  USDT: 'usdttrc20',
  USDC: 'usdc',
};

/** NOWPayments REST API: estimate in the chosen coin, then a hosted invoice priced in EUR. */
export class NowPaymentsGateway {
  constructor(private readonly settings: NowPaymentsSettings) {}

  private headers(): Record<string, string> {
    return { 'x-api-key': this.settings.apiKey, 'Content-Type': 'application/json' };
  }

  async estimate(amountEur: number, currency: CryptoCurrency): Promise<number> {
    const query = new URLSearchParams({
      amount: amountEur.toFixed(2),
      currency_from: 'eur',
      currency_to: NOWPAYMENTS_TICKERS[currency],
    });
    const body = await fetchJson<{ estimated_amount: number | string }>(
      'nowpayments',
      `${this.settings.apiBase}/v1/estimate?${query}`,
      {
        method: 'GET',
        headers: this.headers(),
      },
    );
    return Number(body.estimated_amount);
  }

  async createInvoice(input: {
    paymentId: string;
    amountEur: number;
    currency: CryptoCurrency;
    description: string;
    ipnUrl: string;
    successUrl: string;
    cancelUrl: string;
  }): Promise<{ id: string; invoiceUrl: string }> {
    const body = await fetchJson<{ id: string | number; invoice_url: string }>(
      'nowpayments',
      `${this.settings.apiBase}/v1/invoice`,
      {
        method: 'POST',
        headers: this.headers(),
        body: JSON.stringify({
          price_amount: Number(input.amountEur.toFixed(2)),
          price_currency: 'eur',
          pay_currency: NOWPAYMENTS_TICKERS[input.currency],
          order_id: input.paymentId,
          order_description: input.description,
          ipn_callback_url: input.ipnUrl,
          success_url: input.successUrl,
          cancel_url: input.cancelUrl,
        }),
      },
    );
    return { id: String(body.id), invoiceUrl: body.invoice_url };
  }
}

/** Objects with keys sorted at every level: what NOWPayments signs. */
export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .sort()
        .map((key) => [key, sortKeysDeep((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/** HMAC-SHA512 (hex) of the key-sorted JSON body with the IPN secret. */
export function signNowPaymentsBody(body: unknown, ipnSecret: string): string {
  return createHmac('sha512', ipnSecret)
    .update(JSON.stringify(sortKeysDeep(body)))
    .digest('hex');
}

export function verifyNowPaymentsSignature(body: unknown, signature: string, ipnSecret: string): boolean {
  if (!ipnSecret || !signature) return false;
  return safeEqual(signNowPaymentsBody(body, ipnSecret), signature.trim().toLowerCase());
}
