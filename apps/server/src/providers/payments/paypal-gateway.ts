import { fetchJson, ProviderError } from './provider-error';
import type { PaypalSettings } from './payment-settings';

export interface PaypalCapture {
  id: string;
  status: string;
  amount?: { currency_code: string; value: string };
  custom_id?: string;
}

export interface PaypalOrder {
  id: string;
  status: string;
  links?: Array<{ rel: string; href: string }>;
  purchase_units?: Array<{
    reference_id?: string;
    custom_id?: string;
    amount?: { currency_code: string; value: string };
    payments?: { captures?: PaypalCapture[] };
  }>;
}

export interface PaypalWebhookHeaders {
  authAlgo: string;
  certUrl: string;
  transmissionId: string;
  transmissionSig: string;
  transmissionTime: string;
}

/** PayPal's REST API (Orders v2) over fetch: its SDK cannot be pointed at a local stub. */
export class PaypalGateway {
  private token: { value: string; expiresAt: number } | undefined;

  constructor(private readonly settings: PaypalSettings) {}

  private async accessToken(): Promise<string> {
    if (this.token && this.token.expiresAt > Date.now() + 30_000) return this.token.value;
    if (!this.settings.clientId || !this.settings.clientSecret)
      throw new ProviderError('paypal', 'client id or secret missing');
    const basic = Buffer.from(`${this.settings.clientId}:${this.settings.clientSecret}`).toString('base64');
    const body = await fetchJson<{ access_token: string; expires_in: number }>(
      'paypal',
      `${this.settings.apiBase}/v1/oauth2/token`,
      {
        method: 'POST',
        headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      },
    );
    this.token = { value: body.access_token, expiresAt: Date.now() + body.expires_in * 1000 };
    return body.access_token;
  }

  private async request<T>(
    method: string,
    path: string,
    payload?: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> {
    const token = await this.accessToken();
    return fetchJson<T>('paypal', `${this.settings.apiBase}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    });
  }

  async createOrder(input: {
    paymentId: string;
    amountCents: number;
    description: string;
    returnUrl: string;
    cancelUrl: string;
    brandName: string;
  }): Promise<{ id: string; approveUrl: string }> {
    const order = await this.request<PaypalOrder>(
      'POST',
      '/v2/checkout/orders',
      {
        intent: 'CAPTURE',
        purchase_units: [
          {
            reference_id: input.paymentId,
            custom_id: input.paymentId,
            description: input.description.slice(0, 127),
            amount: { currency_code: 'EUR', value: (input.amountCents / 100).toFixed(2) },
          },
        ],
        payment_source: {
          paypal: {
            experience_context: {
              brand_name: input.brandName.slice(0, 127),
              locale: 'fr-FR',
              user_action: 'PAY_NOW',
              shipping_preference: 'NO_SHIPPING',
              return_url: input.returnUrl,
              cancel_url: input.cancelUrl,
            },
          },
        },
      },
      // Same payment, same order: PayPal answers the first order again on a retry.
      { 'PayPal-Request-Id': `order-${input.paymentId}` },
    );
    const approve = order.links?.find((l) => l.rel === 'payer-action' || l.rel === 'approve');
    if (!approve) throw new ProviderError('paypal', 'order without approval link', undefined, order);
    return { id: order.id, approveUrl: approve.href };
  }

  captureOrder(orderId: string): Promise<PaypalOrder> {
    return this.request<PaypalOrder>(
      'POST',
      `/v2/checkout/orders/${encodeURIComponent(orderId)}/capture`,
      {},
      {
        'PayPal-Request-Id': `capture-${orderId}`,
      },
    );
  }

  getOrder(orderId: string): Promise<PaypalOrder> {
    return this.request<PaypalOrder>('GET', `/v2/checkout/orders/${encodeURIComponent(orderId)}`);
  }

  /** PayPal's own verification call: the only trusted proof a webhook came from PayPal. */
  async verifyWebhook(headers: PaypalWebhookHeaders, event: unknown): Promise<boolean> {
    if (!this.settings.webhookId) return false;
    const result = await this.request<{ verification_status: string }>(
      'POST',
      '/v1/notifications/verify-webhook-signature',
      {
        auth_algo: headers.authAlgo,
        cert_url: headers.certUrl,
        transmission_id: headers.transmissionId,
        transmission_sig: headers.transmissionSig,
        transmission_time: headers.transmissionTime,
        webhook_id: this.settings.webhookId,
        webhook_event: event,
      },
    );
    return result.verification_status === 'SUCCESS';
  }
}

/** The completed capture of an order, if any. */
export function completedCapture(order: PaypalOrder): PaypalCapture | undefined {
  for (const unit of order.purchase_units ?? []) {
    const capture = unit.payments?.captures?.find((c) => c.status === 'COMPLETED');
    if (capture) return capture;
  }
  return undefined;
}

/** A capture's amount as PayPal sends it (a decimal string such as "12.34"), fields possibly missing. */
export interface CaptureAmount {
  value?: string;
  currency_code?: string;
}

/**
 * PayPal's decimal amount string to cents. Missing or malformed amounts give NaN, which the
 * activation reports as an amount mismatch (no decimal comma, unlike the contract's eurosToCents).
 */
export function providerAmountToCents(value: string | undefined): number {
  return Math.round(Number(value ?? 'NaN') * 100);
}

/** What a completed capture confirms: its id and the amount actually captured. */
export function captureConfirmation(capture: { id: string; amount?: CaptureAmount | undefined }): {
  transactionId: string;
  paidAmountCents: number;
  paidCurrency: string | undefined;
} {
  return {
    transactionId: capture.id,
    paidAmountCents: providerAmountToCents(capture.amount?.value),
    paidCurrency: capture.amount?.currency_code,
  };
}
