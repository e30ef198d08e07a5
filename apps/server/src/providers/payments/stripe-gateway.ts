import type Stripe from 'stripe';
import { ProviderError } from './provider-error';
import type { StripeSettings } from './payment-settings';

/**
 * The Stripe SDK (about 4 MiB of heap) is loaded at the first gateway call, not at start-up: an
 * instance without Stripe never loads it (issue 30's memory budget). One promise for the process.
 */
let stripeSdk: Promise<typeof Stripe> | undefined;
const loadStripeSdk = (): Promise<typeof Stripe> =>
  (stripeSdk ??= import('stripe').then((module) => module.default));

export type StripeEvent = Stripe.Event;
export type StripeCheckoutSession = Stripe.Checkout.Session;
export type StripeInvoice = Stripe.Invoice;
export type StripeSubscription = Stripe.Subscription;

export interface CheckoutSessionInput {
  paymentId: string;
  customerId: string;
  stripeCustomerId: string;
  planId: string;
  productName: string;
  amountCents: number;
  interval: 'month' | 'year';
  cycle: string;
  video: boolean;
  successUrl: string;
  cancelUrl: string;
}

/**
 * Stripe through its official SDK. The API host can be redirected (STRIPE_API_BASE) so tests talk to
 * a local stub that follows Stripe's documented requests and answers.
 */
export class StripeGateway {
  private readonly options: Stripe.StripeConfig;
  private client: Promise<Stripe> | undefined;

  constructor(private readonly settings: StripeSettings) {
    const options: Stripe.StripeConfig = { maxNetworkRetries: 1, timeout: 20_000 };
    if (settings.apiBase) {
      const url = new URL(settings.apiBase);
      options.host = url.hostname;
      options.port = url.port || (url.protocol === 'https:' ? 443 : 80);
      options.protocol = url.protocol === 'https:' ? 'https' : 'http';
    }
    this.options = options;
  }

  /** The SDK client, made at this gateway's first call (see loadStripeSdk). */
  private stripe(): Promise<Stripe> {
    return (this.client ??= loadStripeSdk().then(
      (StripeSdk) => new StripeSdk(this.settings.secretKey || 'sk_unconfigured', this.options),
    ));
  }

  private async call<T>(what: string, fn: (stripe: Stripe) => Promise<T>): Promise<T> {
    // Outside the try: as when the client was made in the constructor, a failure to make it is
    // not a ProviderError of a Stripe call.
    const stripe = await this.stripe();
    try {
      return await fn(stripe);
    } catch (error) {
      const e = error as { message?: string; statusCode?: number; raw?: unknown };
      throw new ProviderError('stripe', `${what}: ${e.message ?? String(error)}`, e.statusCode, e.raw);
    }
  }

  createCustomer(email: string, name: string, customerId: string): Promise<string> {
    return this.call(
      'customers.create',
      async (stripe) =>
        (await stripe.customers.create({ email, name, metadata: { customer_id: customerId } })).id,
    );
  }

  createCheckoutSession(input: CheckoutSessionInput): Promise<StripeCheckoutSession> {
    const metadata = {
      payment_id: input.paymentId,
      customer_id: input.customerId,
      plan_id: input.planId,
      billing_cycle: input.cycle,
      video: input.video ? '1' : '0',
    };
    return this.call('checkout.sessions.create', (stripe) =>
      stripe.checkout.sessions.create({
        mode: 'subscription',
        customer: input.stripeCustomerId,
        client_reference_id: input.paymentId,
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: 'eur',
              unit_amount: input.amountCents,
              recurring: { interval: input.interval },
              product_data: { name: input.productName },
            },
          },
        ],
        metadata,
        subscription_data: { metadata },
        locale: 'fr',
        success_url: input.successUrl,
        cancel_url: input.cancelUrl,
      }),
    );
  }

  retrieveCheckoutSession(id: string): Promise<StripeCheckoutSession> {
    return this.call('checkout.sessions.retrieve', (stripe) => stripe.checkout.sessions.retrieve(id));
  }

  createPortalSession(stripeCustomerId: string, returnUrl: string): Promise<string> {
    return this.call('billingPortal.sessions.create', async (stripe) => {
      const session = await stripe.billingPortal.sessions.create({
        customer: stripeCustomerId,
        return_url: returnUrl,
        locale: 'fr',
      });
      return session.url;
    });
  }

  cancelAtPeriodEnd(subscriptionId: string): Promise<StripeSubscription> {
    return this.call('subscriptions.update', (stripe) =>
      stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true }),
    );
  }

  /**
   * Ends a subscription now, without a proration invoice: used when SecureRing replaced or removed
   * it, so Stripe never charges it again. The idempotency key makes a retry (or a second instance)
   * harmless.
   */
  cancelSubscription(subscriptionId: string): Promise<StripeSubscription> {
    return this.call('subscriptions.cancel', (stripe) =>
      stripe.subscriptions.cancel(
        subscriptionId,
        { invoice_now: false, prorate: false },
        { idempotencyKey: `securering-cancel-${subscriptionId}` },
      ),
    );
  }

  /**
   * Moves a subscription's next charge to `until` without charging or crediting anything: a plan
   * bought again while the current period runs starts its billing where the paid time ends.
   */
  deferRenewal(subscriptionId: string, until: Date): Promise<StripeSubscription> {
    return this.call('subscriptions.update', (stripe) =>
      stripe.subscriptions.update(
        subscriptionId,
        { trial_end: Math.floor(until.getTime() / 1000), proration_behavior: 'none' },
        { idempotencyKey: `securering-defer-${subscriptionId}-${until.getTime()}` },
      ),
    );
  }

  /**
   * Refunds what an invoice charged: through the payment intent (or charge) the event named, else
   * the invoice's paid payment read from Stripe. Once per invoice (idempotency key).
   */
  refundInvoice(
    invoiceId: string,
    hint: { paymentIntent?: string | null; charge?: string | null },
  ): Promise<{ id: string; status: string | null }> {
    return this.call('refunds.create', async (stripe) => {
      let paymentIntent = hint.paymentIntent ?? null;
      let charge = hint.charge ?? null;
      if (!paymentIntent && !charge) {
        const payments = await stripe.invoicePayments.list({ invoice: invoiceId, status: 'paid' });
        const paid = payments.data[0]?.payment;
        paymentIntent = refId(paid?.payment_intent);
        charge = refId(paid?.charge);
      }
      if (!paymentIntent && !charge) throw new Error(`no payment to refund on invoice ${invoiceId}`);
      const refund = await stripe.refunds.create(
        {
          ...(paymentIntent ? { payment_intent: paymentIntent } : { charge: charge! }),
          reason: 'duplicate',
          metadata: { invoice: invoiceId },
        },
        { idempotencyKey: `securering-refund-${invoiceId}` },
      );
      return { id: refund.id, status: refund.status };
    });
  }

  /**
   * Checks the Stripe-Signature header (HMAC with the webhook secret, 5-minute tolerance). Async
   * only because the SDK may still have to be loaded; a bad signature rejects.
   */
  async constructEvent(rawBody: Buffer, signature: string): Promise<StripeEvent> {
    return (await this.stripe()).webhooks.constructEvent(rawBody, signature, this.settings.webhookSecret);
  }
}

function refId(value: string | { id: string } | null | undefined): string | null {
  if (!value) return null;
  return typeof value === 'string' ? value : value.id;
}

/** What an invoice event names of the money it collected (older API shapes), for a refund. */
export function invoicePaymentRefs(invoice: StripeInvoice): {
  paymentIntent: string | null;
  charge: string | null;
} {
  const legacy = invoice as unknown as {
    payment_intent?: string | { id: string } | null;
    charge?: string | { id: string } | null;
  };
  const listed = (
    invoice as unknown as {
      payments?: {
        data?: Array<{
          payment?: { payment_intent?: string | { id: string }; charge?: string | { id: string } };
        }>;
      };
    }
  ).payments?.data?.[0]?.payment;
  return {
    paymentIntent: refId(legacy.payment_intent) ?? refId(listed?.payment_intent),
    charge: refId(legacy.charge) ?? refId(listed?.charge),
  };
}

/** The subscription id of an invoice, in both the older and newer API shapes. */
export function invoiceSubscriptionId(invoice: StripeInvoice): string | null {
  const legacy = (invoice as unknown as { subscription?: string | { id: string } | null }).subscription;
  if (legacy) return typeof legacy === 'string' ? legacy : legacy.id;
  const parent = (
    invoice as unknown as { parent?: { subscription_details?: { subscription?: string | { id: string } } } }
  ).parent;
  const fromParent = parent?.subscription_details?.subscription;
  if (fromParent) return typeof fromParent === 'string' ? fromParent : fromParent.id;
  return null;
}

/** What a paid checkout session confirms: invoice, subscription and the amount actually charged. */
export function sessionConfirmation(session: StripeCheckoutSession): {
  transactionId: string | null;
  providerSubscriptionId: string | null;
  paidAmountCents: number | undefined;
  paidCurrency: string | undefined;
} {
  return {
    transactionId: typeof session.invoice === 'string' ? session.invoice : (session.invoice?.id ?? null),
    providerSubscriptionId:
      typeof session.subscription === 'string' ? session.subscription : (session.subscription?.id ?? null),
    paidAmountCents: session.amount_total ?? undefined,
    paidCurrency: session.currency ?? undefined,
  };
}

/** End of the period an invoice pays for (seconds → Date), when Stripe says it. */
export function invoicePeriodEnd(invoice: StripeInvoice): Date | null {
  const end = invoice.lines?.data?.[0]?.period?.end;
  return typeof end === 'number' ? new Date(end * 1000) : null;
}
