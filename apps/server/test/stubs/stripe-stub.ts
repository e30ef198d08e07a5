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
  readonly subscriptions = new Map<
    string,
    { id: string; cancel_at_period_end: boolean; status?: string; trial_end?: number }
  >();
  /** Subscriptions ended through DELETE /v1/subscriptions/:id, in order. */
  readonly cancelled: string[] = [];
  /** Refunds created through POST /v1/refunds. */
  readonly refunds: Array<{
    id: string;
    payment_intent?: string;
    charge?: string;
    reason?: string;
    idempotencyKey?: string;
  }> = [];
  /** Invoice → payment intent, as GET /v1/invoice_payments?invoice= lists it. */
  readonly invoicePayments = new Map<string, string>();
  /** While true, subscription cancellations and refunds answer 500 (a Stripe outage). */
  outage = false;

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
      const previous = this.subscriptions.get(params.id!);
      const sub = {
        ...previous,
        id: params.id!,
        object: 'subscription',
        cancel_at_period_end:
          body.cancel_at_period_end === undefined
            ? (previous?.cancel_at_period_end ?? false)
            : body.cancel_at_period_end === 'true',
        ...(body.trial_end ? { trial_end: Number(body.trial_end) } : {}),
      };
      this.subscriptions.set(sub.id, sub);
      return { body: sub };
    });
    // Stripe's "cancel a subscription": DELETE, ends it now.
    this.route('DELETE', '/v1/subscriptions/:id', (_req, params) => {
      if (this.outage) return { status: 500, body: { error: { type: 'api_error', message: 'Outage' } } };
      const previous = this.subscriptions.get(params.id!);
      if (previous?.status === 'canceled') {
        return {
          status: 400,
          body: {
            error: {
              type: 'invalid_request_error',
              message: `A canceled subscription can only update its cancellation_details and metadata.`,
            },
          },
        };
      }
      const sub = {
        ...previous,
        id: params.id!,
        object: 'subscription',
        status: 'canceled',
        cancel_at_period_end: false,
      };
      this.subscriptions.set(sub.id, sub);
      this.cancelled.push(sub.id);
      return { body: sub };
    });
    this.route('GET', '/v1/invoice_payments', (req) => {
      const invoice = req.query.get('invoice') ?? '';
      const pi = this.invoicePayments.get(invoice);
      return {
        body: {
          object: 'list',
          has_more: false,
          url: '/v1/invoice_payments',
          data: pi
            ? [
                {
                  id: id('inpay'),
                  object: 'invoice_payment',
                  invoice,
                  status: 'paid',
                  payment: { type: 'payment_intent', payment_intent: pi },
                },
              ]
            : [],
        },
      };
    });
    this.route('POST', '/v1/refunds', (req) => {
      if (this.outage) return { status: 500, body: { error: { type: 'api_error', message: 'Outage' } } };
      const body = parseStripeForm(req.rawBody) as {
        payment_intent?: string;
        charge?: string;
        reason?: string;
      };
      const key = req.headers['idempotency-key'];
      const idempotencyKey = typeof key === 'string' ? key : undefined;
      const existing = idempotencyKey
        ? this.refunds.find((r) => r.idempotencyKey === idempotencyKey)
        : undefined;
      const refund = existing ?? { id: id('re'), ...body, idempotencyKey };
      if (!existing) this.refunds.push(refund);
      return { body: { ...refund, object: 'refund', status: 'succeeded' } };
    });
  }

  /** A renewal invoice Stripe charged for a subscription, as invoice.paid carries it (newer API shape). */
  renewalInvoice(subscriptionId: string, amountCents: number, periodEnd: Date) {
    const invoiceId = id('in');
    this.invoicePayments.set(invoiceId, id('pi'));
    return {
      id: invoiceId,
      object: 'invoice',
      billing_reason: 'subscription_cycle',
      parent: { type: 'subscription_details', subscription_details: { subscription: subscriptionId } },
      amount_paid: amountCents,
      amount_due: amountCents,
      currency: 'eur',
      lines: { data: [{ period: { end: Math.floor(periodEnd.getTime() / 1000) } }] },
    };
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
