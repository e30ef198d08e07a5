import { randomBytes } from 'node:crypto';
import { StubServer } from './stub-server';

const id = (prefix: string) => `${prefix}${randomBytes(6).toString('hex').toUpperCase()}`;

interface StubOrder {
  id: string;
  status: 'PAYER_ACTION_REQUIRED' | 'APPROVED' | 'COMPLETED';
  purchase_units: Array<{
    reference_id: string;
    custom_id: string;
    amount: { currency_code: string; value: string };
    payments?: {
      captures: Array<{
        id: string;
        status: string;
        amount: { currency_code: string; value: string };
        custom_id: string;
      }>;
    };
  }>;
  links: Array<{ rel: string; href: string; method: string }>;
}

/**
 * Local stand-in for PayPal's REST API: OAuth token, Orders v2 (create, capture, get) and the
 * webhook signature verification call. `approve()` plays the payer approving on PayPal's page.
 */
export class PaypalStub extends StubServer {
  readonly orders = new Map<string, StubOrder>();
  /** Transmission signatures PayPal would accept as genuine. */
  readonly genuineSignatures = new Set<string>();
  captureCalls = 0;

  constructor(
    private readonly clientId: string,
    private readonly clientSecret: string,
    private readonly webhookId: string,
  ) {
    super();
    this.route('POST', '/v1/oauth2/token', (req) => {
      const expected = `Basic ${Buffer.from(`${this.clientId}:${this.clientSecret}`).toString('base64')}`;
      if (req.headers.authorization !== expected) return { status: 401, body: { error: 'invalid_client' } };
      return { body: { access_token: 'A21AA-stub-token', token_type: 'Bearer', expires_in: 32400 } };
    });
    this.route('POST', '/v2/checkout/orders', (req) => {
      if (req.headers.authorization !== 'Bearer A21AA-stub-token')
        return { status: 401, body: { name: 'AUTHENTICATION_FAILURE' } };
      const body = JSON.parse(req.rawBody) as { purchase_units: StubOrder['purchase_units'] };
      const orderId = id('5O');
      const order: StubOrder = {
        id: orderId,
        status: 'PAYER_ACTION_REQUIRED',
        purchase_units: body.purchase_units,
        links: [
          { rel: 'self', href: `${this.base}/v2/checkout/orders/${orderId}`, method: 'GET' },
          { rel: 'payer-action', href: `${this.base}/checkoutnow?token=${orderId}`, method: 'GET' },
        ],
      };
      this.orders.set(orderId, order);
      return { status: 201, body: order };
    });
    this.route('POST', '/v2/checkout/orders/:id/capture', (_req, params) => {
      this.captureCalls += 1;
      const order = this.orders.get(params.id!);
      if (!order) return { status: 404, body: { name: 'RESOURCE_NOT_FOUND' } };
      if (order.status === 'COMPLETED') {
        return {
          status: 422,
          body: { name: 'UNPROCESSABLE_ENTITY', details: [{ issue: 'ORDER_ALREADY_CAPTURED' }] },
        };
      }
      if (order.status !== 'APPROVED') {
        return {
          status: 422,
          body: { name: 'UNPROCESSABLE_ENTITY', details: [{ issue: 'ORDER_NOT_APPROVED' }] },
        };
      }
      const unit = order.purchase_units[0]!;
      unit.payments = {
        captures: [{ id: id('CAP'), status: 'COMPLETED', amount: unit.amount, custom_id: unit.custom_id }],
      };
      order.status = 'COMPLETED';
      return { status: 201, body: order };
    });
    this.route('GET', '/v2/checkout/orders/:id', (_req, params) => {
      const order = this.orders.get(params.id!);
      return order ? { body: order } : { status: 404, body: { name: 'RESOURCE_NOT_FOUND' } };
    });
    this.route('POST', '/v1/notifications/verify-webhook-signature', (req) => {
      const body = JSON.parse(req.rawBody) as { transmission_sig: string; webhook_id: string };
      const ok = body.webhook_id === this.webhookId && this.genuineSignatures.has(body.transmission_sig);
      return { body: { verification_status: ok ? 'SUCCESS' : 'FAILURE' } };
    });
  }

  approve(orderId: string): void {
    const order = this.orders.get(orderId);
    if (!order) throw new Error(`unknown order ${orderId}`);
    order.status = 'APPROVED';
  }

  /** Headers of a webhook delivery PayPal would vouch for (or not). */
  webhookHeaders(genuine: boolean): Record<string, string> {
    const sig = `sig-${randomBytes(8).toString('hex')}`;
    if (genuine) this.genuineSignatures.add(sig);
    return {
      'paypal-auth-algo': 'SHA256withRSA',
      'paypal-cert-url': `${this.base}/v1/notifications/certs/CERT-stub`,
      'paypal-transmission-id': randomBytes(8).toString('hex'),
      'paypal-transmission-sig': sig,
      'paypal-transmission-time': new Date().toISOString(),
    };
  }
}
