import {
  SUBSCRIPTION_MESSAGES,
  centsToEuros,
  computeSubscriptionStatus,
  paymentReference,
  quotePrice,
  type BillingCycle,
  type CryptoCurrency,
  type PriceQuote,
  type TCheckoutResponse,
  type TCryptoCheckoutResponse,
  type TFinalizeResponse,
  type TPaymentProviders,
} from '@securering/contract';
import type { AppContext } from '../../app-context';
import { AppError, badRequest, forbidden, notFound } from '../../lib/app-error';
import { newId } from '../../lib/ids';
import { newToken } from '../../lib/tokens';
import { NowPaymentsGateway } from '../../providers/payments/nowpayments-gateway';
import {
  loadNowPaymentsSettings,
  loadPaypalSettings,
  loadStripeSettings,
  type NowPaymentsSettings,
  type PaypalSettings,
  type StripeSettings,
} from '../../providers/payments/payment-settings';
import {
  captureConfirmation,
  completedCapture,
  PaypalGateway,
} from '../../providers/payments/paypal-gateway';
import { ProviderError } from '../../providers/payments/provider-error';
import { sessionConfirmation, StripeGateway } from '../../providers/payments/stripe-gateway';
import type { CustomerRow } from '../customers/customer.repository';
import { CustomerRepository } from '../customers/customer.repository';
import { PlanRepository, type PlanRow } from '../plans/plan.repository';
import { PaymentActivation } from './activate-payment';
import { PaymentRepository, type PaymentRow } from './payment.repository';
import { SubscriptionRepository } from './subscription.repository';

export interface CheckoutInput {
  plan_id: string;
  billing_period: BillingCycle;
  video_option: boolean;
}

interface LoadedProviders {
  available: TPaymentProviders;
  stripe: StripeSettings;
  paypal: PaypalSettings;
  crypto: NowPaymentsSettings;
}

const FINALIZE_MESSAGES: Record<PaymentRow['status'], string> = {
  completed: 'Paiement confirmé : votre abonnement est actif.',
  pending: 'Paiement en cours de confirmation. Votre abonnement sera activé dès sa réception.',
  failed: 'Le paiement n’a pas abouti.',
  cancelled: 'Le paiement a été annulé.',
  refunded: 'Ce paiement a été remboursé.',
};

/**
 * Starts checkouts with each provider and finalises them on return. Prices are always computed here
 * from the plan, the period and the video option; nothing the browser sends is charged as is.
 */
export class CheckoutService {
  private readonly payments: PaymentRepository;
  private readonly plans: PlanRepository;
  private readonly activation: PaymentActivation;

  constructor(private readonly ctx: AppContext) {
    this.payments = new PaymentRepository(ctx.db);
    this.plans = new PlanRepository(ctx.db);
    this.activation = new PaymentActivation(ctx);
  }

  async providers(): Promise<TPaymentProviders> {
    return (await this.loadProviders()).available;
  }

  /** Every provider's settings, loaded once, and which providers they make available. */
  private async loadProviders(): Promise<LoadedProviders> {
    const { settings, config } = this.ctx;
    const [stripe, paypal, crypto] = await Promise.all([
      loadStripeSettings(settings, config),
      loadPaypalSettings(settings, config),
      loadNowPaymentsSettings(settings, config),
    ]);
    const card = stripe.enabled && Boolean(stripe.secretKey);
    const pp = paypal.enabled && Boolean(paypal.clientId && paypal.clientSecret);
    const cr = crypto.enabled && Boolean(crypto.apiKey);
    // The local test provider activates subscriptions without payment: it exists only when the
    // operator started the server with PAYMENT_TEST_MODE=1, and only while no real one is on.
    const test = config.paymentTestMode && !card && !pp && !cr;
    return { available: { card, paypal: pp, crypto: cr, test }, stripe, paypal, crypto };
  }

  async startStripe(customer: CustomerRow, input: CheckoutInput): Promise<TCheckoutResponse> {
    const { ctx } = this;
    const providers = await this.loadProviders();
    if (!providers.available.card) throw forbidden(SUBSCRIPTION_MESSAGES.providerUnavailable);
    const { plan, quote } = await this.priced(customer, input);
    const payment = await this.createPendingPayment(customer, plan, quote, 'stripe', {});
    const gateway = new StripeGateway(providers.stripe);
    try {
      let stripeCustomerId = customer.stripe_customer_id;
      if (!stripeCustomerId) {
        stripeCustomerId = await gateway.createCustomer(
          customer.email,
          `${customer.first_name} ${customer.last_name}`.trim(),
          customer.id,
        );
        await new CustomerRepository(ctx.db).update(customer.id, {
          stripe_customer_id: stripeCustomerId,
          updated_at: ctx.clock.now().toISOString(),
        });
      }
      const session = await gateway.createCheckoutSession({
        paymentId: payment.id,
        customerId: customer.id,
        stripeCustomerId,
        planId: plan.id,
        productName: `${plan.name}${quote.video && !quote.videoIncluded ? ' + option vidéo' : ''} (${quote.cycle === 'yearly' ? 'annuel' : 'mensuel'})`,
        amountCents: quote.amountCents,
        interval: quote.cycle === 'yearly' ? 'year' : 'month',
        cycle: quote.cycle,
        video: quote.video,
        successUrl: `${ctx.config.publicUrl}/payment-success?session_id={CHECKOUT_SESSION_ID}`,
        cancelUrl: `${ctx.config.publicUrl}/payment-cancelled`,
      });
      if (!session.url) throw new ProviderError('stripe', 'session without url');
      await this.payments.update(payment.id, {
        provider_order_id: session.id,
        updated_at: ctx.clock.now().toISOString(),
      });
      return { success: true, checkout_url: session.url, reference: paymentReference(payment.id) };
    } catch (error) {
      throw await this.providerFailure(payment, error, SUBSCRIPTION_MESSAGES.paymentCreationFailed);
    }
  }

  async startPaypal(customer: CustomerRow, input: CheckoutInput): Promise<TCheckoutResponse> {
    const { ctx } = this;
    const providers = await this.loadProviders();
    if (!providers.available.paypal) throw forbidden(SUBSCRIPTION_MESSAGES.providerUnavailable);
    const { plan, quote } = await this.priced(customer, input);
    const payment = await this.createPendingPayment(customer, plan, quote, 'paypal', {});
    try {
      const gateway = new PaypalGateway(providers.paypal);
      const order = await gateway.createOrder({
        paymentId: payment.id,
        amountCents: quote.amountCents,
        description: `${plan.name} — abonnement ${quote.cycle === 'yearly' ? 'annuel' : 'mensuel'}`,
        // PayPal appends ?token=<order id>&PayerID=… to the return address.
        returnUrl: `${ctx.config.publicUrl}/payment-success`,
        cancelUrl: `${ctx.config.publicUrl}/payment-cancelled`,
        brandName: await ctx.settings.getValue('general', 'site_name'),
      });
      await this.payments.update(payment.id, {
        provider_order_id: order.id,
        updated_at: ctx.clock.now().toISOString(),
      });
      return { success: true, checkout_url: order.approveUrl, reference: paymentReference(payment.id) };
    } catch (error) {
      throw await this.providerFailure(payment, error, SUBSCRIPTION_MESSAGES.paymentCreationFailed);
    }
  }

  async startCrypto(
    customer: CustomerRow,
    input: CheckoutInput & { currency: CryptoCurrency },
  ): Promise<TCryptoCheckoutResponse> {
    const { ctx } = this;
    const providers = await this.loadProviders();
    if (!providers.available.crypto) throw forbidden(SUBSCRIPTION_MESSAGES.providerUnavailable);
    const { plan, quote } = await this.priced(customer, input);
    const payment = await this.createPendingPayment(customer, plan, quote, 'nowpayments', {
      crypto_currency: input.currency,
    });
    try {
      const gateway = new NowPaymentsGateway(providers.crypto);
      const amountEur = centsToEuros(quote.amountCents);
      const cryptoAmount = await gateway.estimate(amountEur, input.currency);
      const invoice = await gateway.createInvoice({
        paymentId: payment.id,
        amountEur,
        currency: input.currency,
        description: `${plan.name} — abonnement ${quote.cycle === 'yearly' ? 'annuel' : 'mensuel'}`,
        ipnUrl: `${ctx.config.publicUrl}/api/webhooks/nowpayments.php`,
        successUrl: `${ctx.config.publicUrl}/payment-success?provider=crypto&reference=${encodeURIComponent(paymentReference(payment.id))}`,
        cancelUrl: `${ctx.config.publicUrl}/payment-cancelled`,
      });
      await this.payments.update(payment.id, {
        provider_order_id: invoice.id,
        metadata: JSON.stringify({
          crypto_currency: input.currency,
          crypto_amount: cryptoAmount,
          invoice_url: invoice.invoiceUrl,
        }),
        updated_at: ctx.clock.now().toISOString(),
      });
      return {
        success: true,
        payment_url: invoice.invoiceUrl,
        crypto_amount: cryptoAmount,
        crypto_currency: input.currency,
        amount_eur: amountEur,
        reference: paymentReference(payment.id),
      };
    } catch (error) {
      throw await this.providerFailure(payment, error, SUBSCRIPTION_MESSAGES.cryptoPaymentCreationFailed);
    }
  }

  /** The local test provider: a checkout page served by SecureRing, only with PAYMENT_TEST_MODE=1. */
  async startTest(customer: CustomerRow, input: CheckoutInput): Promise<TCheckoutResponse> {
    if (!(await this.providers()).test) throw forbidden(SUBSCRIPTION_MESSAGES.testProviderUnavailable);
    const { plan, quote } = await this.priced(customer, input);
    const sessionId = `test_${newToken(18)}`;
    const payment = await this.createPendingPayment(customer, plan, quote, 'test', {}, sessionId);
    return {
      success: true,
      checkout_url: `/test-checkout?session_id=${sessionId}`,
      reference: paymentReference(payment.id),
    };
  }

  async testCheckoutSummary(customer: CustomerRow, sessionId: string): Promise<PaymentRow> {
    if (!(await this.providers()).test) throw forbidden(SUBSCRIPTION_MESSAGES.testProviderUnavailable);
    return this.ownedPayment(customer, 'test', sessionId);
  }

  async decideTestCheckout(
    customer: CustomerRow,
    sessionId: string,
    action: 'approve' | 'cancel',
  ): Promise<string> {
    if (!(await this.providers()).test) throw forbidden(SUBSCRIPTION_MESSAGES.testProviderUnavailable);
    const payment = await this.ownedPayment(customer, 'test', sessionId);
    if (action === 'cancel') {
      await this.activation.fail(payment.id, 'Annulé sur la page de paiement de test', 'cancelled');
      return '/payment-cancelled';
    }
    await this.activation.complete(payment.id, { transactionId: `test_txn_${payment.id.slice(-12)}` });
    return `/payment-success?session_id=${encodeURIComponent(sessionId)}`;
  }

  /** Return from Stripe (or the test page): confirm with the provider, then activate. */
  async finalizeSession(customer: CustomerRow, sessionId: string): Promise<TFinalizeResponse> {
    const { ctx } = this;
    if (sessionId.startsWith('test_')) {
      if (!(await this.providers()).test) throw forbidden(SUBSCRIPTION_MESSAGES.testProviderUnavailable);
      return this.finalizeResponse(await this.ownedPayment(customer, 'test', sessionId));
    }
    let payment = await this.ownedPayment(customer, 'stripe', sessionId);
    if (payment.status === 'pending') {
      const gateway = new StripeGateway(await loadStripeSettings(ctx.settings, ctx.config));
      let session;
      try {
        session = await gateway.retrieveCheckoutSession(sessionId);
      } catch (error) {
        await this.logProviderError(payment, error);
        return this.finalizeResponse(payment);
      }
      if (session.status === 'complete' && session.payment_status === 'paid') {
        const result = await this.activation.complete(payment.id, sessionConfirmation(session));
        payment = result.payment;
      } else if (session.status === 'expired') {
        await this.activation.fail(payment.id, 'Session de paiement expirée', 'cancelled');
        payment = (await this.payments.findById(payment.id))!;
      }
    }
    await ctx.systemLog.info('payment', 'Finalisation du paiement (retour client)', {
      userId: customer.id,
      details: { payment_id: payment.id, provider: payment.provider, status: payment.status },
    });
    return this.finalizeResponse(payment);
  }

  /** Return from PayPal: capture the approved order, then activate. */
  async finalizePaypal(customer: CustomerRow, orderId: string): Promise<TFinalizeResponse> {
    const { ctx } = this;
    let payment = await this.ownedPayment(customer, 'paypal', orderId);
    if (payment.status === 'pending') {
      const gateway = new PaypalGateway(await loadPaypalSettings(ctx.settings, ctx.config));
      const result = await capturePaypalOrder(gateway, orderId).catch(async (error: unknown) => {
        await this.logProviderError(payment, error);
        return undefined;
      });
      if (result?.capture) {
        const activated = await this.activation.complete(payment.id, captureConfirmation(result.capture));
        payment = activated.payment;
      } else if (result?.declined) {
        await this.activation.fail(payment.id, 'Paiement refusé par PayPal');
        payment = (await this.payments.findById(payment.id))!;
      }
    }
    return this.finalizeResponse(payment);
  }

  async finalizeResponse(payment: PaymentRow): Promise<TFinalizeResponse> {
    const subscription = payment.subscription_id
      ? await new SubscriptionRepository(this.ctx.db).findById(payment.subscription_id)
      : undefined;
    const active = subscription && computeSubscriptionStatus(subscription, this.ctx.clock.now()) === 'active';
    return {
      success: true,
      status: payment.status,
      reference: paymentReference(payment.id),
      plan_name: payment.plan_name,
      billing_cycle: payment.billing_cycle,
      amount: centsToEuros(payment.amount_cents),
      currency: payment.currency,
      expires_at: active ? subscription.expires_at : null,
      message:
        payment.status === 'failed' && payment.failure_reason
          ? `${FINALIZE_MESSAGES.failed} ${payment.failure_reason}`
          : FINALIZE_MESSAGES[payment.status],
    };
  }

  private async ownedPayment(customer: CustomerRow, provider: string, orderId: string): Promise<PaymentRow> {
    const payment = await this.payments.findByOrder(provider, orderId);
    // Someone else's payment reads exactly like a missing one.
    if (!payment || payment.customer_id !== customer.id)
      throw notFound(SUBSCRIPTION_MESSAGES.paymentNotFound);
    return payment;
  }

  private async priced(
    customer: CustomerRow,
    input: CheckoutInput,
  ): Promise<{ plan: PlanRow; quote: PriceQuote }> {
    if (customer.email_verified !== 1) throw forbidden(SUBSCRIPTION_MESSAGES.emailNotVerified);
    const plan = await this.plans.findById(input.plan_id);
    if (!plan || plan.is_active !== 1) throw badRequest(SUBSCRIPTION_MESSAGES.planNotFound);
    const quote = quotePrice(
      { priceCents: plan.price_cents, videoOptionCents: plan.video_option_cents },
      input.billing_period,
      input.video_option,
    );
    if (quote.amountCents <= 0) throw badRequest(SUBSCRIPTION_MESSAGES.planNotFound);
    return { plan, quote };
  }

  private async createPendingPayment(
    customer: CustomerRow,
    plan: PlanRow,
    quote: PriceQuote,
    provider: string,
    metadata: Record<string, unknown>,
    providerOrderId: string | null = null,
  ): Promise<PaymentRow> {
    const nowIso = this.ctx.clock.now().toISOString();
    const payment: PaymentRow = {
      id: newId(),
      customer_id: customer.id,
      subscription_id: null,
      plan_id: plan.id,
      plan_name: plan.name,
      billing_cycle: quote.cycle,
      video_enabled: quote.video ? 1 : 0,
      amount_cents: quote.amountCents,
      currency: 'EUR',
      provider,
      status: 'pending',
      payment_type: 'subscription',
      transaction_id: null,
      provider_order_id: providerOrderId,
      failure_reason: null,
      metadata: JSON.stringify(metadata),
      created_at: nowIso,
      updated_at: nowIso,
      completed_at: null,
    };
    await this.payments.insert(payment);
    return payment;
  }

  private async logProviderError(payment: PaymentRow, error: unknown): Promise<void> {
    const e = error as ProviderError;
    await this.ctx.systemLog.error('payment', `Erreur du prestataire ${payment.provider}`, {
      userId: payment.customer_id,
      details: { payment_id: payment.id, error: e.message, status: e.status, body: e.body },
    });
  }

  private async providerFailure(payment: PaymentRow, error: unknown, message: string): Promise<AppError> {
    if (error instanceof AppError) return error;
    await this.logProviderError(payment, error);
    await this.activation.fail(payment.id, 'Création du paiement refusée par le prestataire');
    return new AppError(502, message);
  }
}

/**
 * Captures an approved PayPal order. An order captured earlier (by the webhook, or a second tab)
 * is read back instead. Returns the completed capture, or whether PayPal declined it.
 */
export async function capturePaypalOrder(
  gateway: PaypalGateway,
  orderId: string,
): Promise<{ capture?: ReturnType<typeof completedCapture>; declined: boolean }> {
  try {
    const order = await gateway.captureOrder(orderId);
    return { capture: completedCapture(order), declined: order.status === 'VOIDED' };
  } catch (error) {
    if (error instanceof ProviderError && error.status === 422) {
      const order = await gateway.getOrder(orderId);
      const capture = completedCapture(order);
      const issue = JSON.stringify(error.body ?? '');
      return { capture, declined: !capture && /INSTRUMENT_DECLINED|DECLINED/.test(issue) };
    }
    throw error;
  }
}
