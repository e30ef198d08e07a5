import { createHmac, randomBytes } from 'node:crypto';
import { StubServer, parseStripeForm } from './stub-server';

const id = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

export interface StubSession {
  id: string;
  object: 'checkout.session';
  url: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid';
  mode: string;
  amount_total: number;
  currency: string;
  customer: string;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  subscription: string | null;
  invoice: string | null;
  success_url: string;
  cancel_url: string;
}

/**
 * Local stand-in for the Stripe API, answering the documented requests the server makes:
 * customers, checkout sessions, billing portal sessions and subscription updates.
 */
export class StripeStub extends StubServer {
  readonly sessions = new Map<string, StubSession>();
  readonly subscriptions = new Map<string, { id: string; cancel_at_period_end: boolean }>();

  constructor() {
    super();
    this.route('POST', '/v1/customers', (req) => {
      const body = parseStripeForm(req.rawBody);
      return { body: { id: id('cus'), object: 'customer', email: body.email } };
    });
    this.route('POST', '/v1/checkout/sessions', (req) => {
      const body = parseStripeForm(req.rawBody) as {
        line_items: Record<
          string,
          { quantity: string; price_data: { unit_amount: string; currency: string } }
        >;
        customer: string;
        client_reference_id?: string;
        metadata?: Record<string, string>;
        mode: string;
        success_url: string;
        cancel_url: string;
      };
      const item = body.line_items['0']!;
      const sessionId = id('cs_test');
      const session: StubSession = {
        id: sessionId,
        object: 'checkout.session',
        url: `${this.base}/checkout/${sessionId}`,
        status: 'open',
        payment_status: 'unpaid',
        mode: body.mode,
        amount_total: Number(item.price_data.unit_amount) * Number(item.quantity),
        currency: item.price_data.currency,
        customer: body.customer,
        client_reference_id: body.client_reference_id ?? null,
        metadata: body.metadata ?? {},
        subscription: null,
        invoice: null,
        success_url: body.success_url.replace('{CHECKOUT_SESSION_ID}', sessionId),
        cancel_url: body.cancel_url,
      };
      this.sessions.set(sessionId, session);
      return { body: session };
    });
    this.route('GET', '/v1/checkout/sessions/:id', (_req, params) => {
      const session = this.sessions.get(params.id!);
      return session
        ? { body: session }
        : { status: 404, body: { error: { type: 'invalid_request_error', message: 'No such session' } } };
    });
    this.route('POST', '/v1/billing_portal/sessions', () => ({
      body: { id: id('bps'), object: 'billing_portal.session', url: `${this.base}/portal/${id('p')}` },
    }));
    this.route('POST', '/v1/subscriptions/:id', (req, params) => {
      const body = parseStripeForm(req.rawBody);
      const sub = {
        id: params.id!,
        object: 'subscription',
        cancel_at_period_end: body.cancel_at_period_end === 'true',
      };
      this.subscriptions.set(sub.id, sub);
      return { body: sub };
    });
  }

  /** The customer pays on Stripe's page: the session completes with a subscription and invoice. */
  pay(sessionId: string): StubSession {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`unknown session ${sessionId}`);
    Object.assign(session, {
      status: 'complete',
      payment_status: 'paid',
      subscription: id('sub'),
      invoice: id('in'),
    });
    return session;
  }
}

/** A Stripe event envelope as Stripe posts it. */
export function stripeEvent(type: string, object: unknown, eventId = id('evt')) {
  return {
    id: eventId,
    object: 'event',
    api_version: '2024-06-20',
    created: Math.floor(Date.now() / 1000),
    type,
    data: { object },
  };
}

/** The Stripe-Signature header: t=<unix>,v1=HMAC-SHA256(secret, "<t>.<payload>"). */
export function stripeSignature(
  payload: string,
  secret: string,
  timestamp = Math.floor(Date.now() / 1000),
): string {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex');
  return `t=${timestamp},v1=${signature}`;
}
