import type { AppContext } from '../../app-context';
import { AppError } from '../../lib/app-error';
import { MINUTE_MS } from '../../lib/clock';
import { newId } from '../../lib/ids';
import {
  loadNowPaymentsSettings,
  loadPaypalSettings,
  loadStripeSettings,
} from '../../providers/payments/payment-settings';
import { verifyNowPaymentsSignature } from '../../providers/payments/nowpayments-gateway';
import {
  captureConfirmation,
  PaypalGateway,
  type CaptureAmount,
  type PaypalWebhookHeaders,
} from '../../providers/payments/paypal-gateway';
import {
  invoicePaymentRefs,
  invoicePeriodEnd,
  invoiceSubscriptionId,
  sessionConfirmation,
  StripeGateway,
  type StripeCheckoutSession,
  type StripeEvent,
  type StripeInvoice,
  type StripeSubscription,
} from '../../providers/payments/stripe-gateway';
import { endRingAccessIfUnsubscribed } from '../rings/end-access';
import { PaymentActivation } from './activate-payment';
import { capturePaypalOrder } from './checkout.service';
import { PaymentRepository } from './payment.repository';
import { ProviderActionRepository } from './provider-action.repository';
import { SubscriptionRepository } from './subscription.repository';

export type WebhookOutcome = { success: true; duplicate?: boolean; ignored?: boolean };

const invalidSignature = () => new AppError(400, 'Signature invalide');

/**
 * Provider events. Each is authenticated first (Stripe signature, PayPal's verification call,
 * NOWPayments HMAC), then processed exactly once: claimed in webhook_events, and activation itself
 * is idempotent per payment.
 */
export class WebhookService {
  private readonly payments: PaymentRepository;
  private readonly subscriptions: SubscriptionRepository;
  private readonly activation: PaymentActivation;

  constructor(private readonly ctx: AppContext) {
    this.payments = new PaymentRepository(ctx.db);
    this.subscriptions = new SubscriptionRepository(ctx.db);
    this.activation = new PaymentActivation(ctx);
  }

  private async once(
    provider: string,
    eventId: string,
    eventType: string,
    handler: () => Promise<void>,
  ): Promise<WebhookOutcome> {
    const now = this.ctx.clock.now();
    const claim = await this.payments.claimWebhookEvent(
      { id: newId(), provider, event_id: eventId, event_type: eventType, received_at: now.toISOString() },
      new Date(now.getTime() - 5 * MINUTE_MS).toISOString(),
    );
    if (claim.outcome === 'duplicate') return { success: true, duplicate: true };
    // Another delivery is on it: answer with an error so the provider retries later.
    if (claim.outcome === 'in_progress') throw new AppError(409, 'Événement en cours de traitement');
    try {
      await handler();
    } catch (error) {
      await this.payments.releaseWebhookEvent(claim.id);
      throw error;
    }
    await this.payments.markWebhookProcessed(claim.id, this.ctx.clock.now().toISOString());
    return { success: true };
  }

  async stripe(rawBody: Buffer, signature: string | undefined): Promise<WebhookOutcome> {
    const settings = await loadStripeSettings(this.ctx.settings, this.ctx.config);
    if (!settings.webhookSecret || !signature) throw invalidSignature();
    let event: StripeEvent;
    try {
      event = await new StripeGateway(settings).constructEvent(rawBody, signature);
    } catch {
      await this.ctx.systemLog.warning('payment', 'Webhook Stripe refusé : signature invalide ou périmée');
      throw invalidSignature();
    }
    return this.once('stripe', event.id, event.type, () => this.handleStripe(event));
  }

  private async handleStripe(event: StripeEvent): Promise<void> {
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded': {
        const session = event.data.object as StripeCheckoutSession;
        if (session.payment_status !== 'paid') return;
        const paymentId = session.client_reference_id ?? session.metadata?.payment_id;
        const payment = paymentId
          ? await this.payments.findById(paymentId)
          : await this.payments.findByOrder('stripe', session.id);
        if (!payment || payment.provider !== 'stripe') return;
        await this.activation.complete(payment.id, sessionConfirmation(session));
        return;
      }
      case 'checkout.session.async_payment_failed':
      case 'checkout.session.expired': {
        const session = event.data.object as StripeCheckoutSession;
        const payment = await this.payments.findByOrder('stripe', session.id);
        if (payment) {
          await this.activation.fail(
            payment.id,
            event.type === 'checkout.session.expired' ? 'Session de paiement expirée' : 'Paiement refusé',
            event.type === 'checkout.session.expired' ? 'cancelled' : 'failed',
          );
        }
        return;
      }
      case 'invoice.paid': {
        const invoice = event.data.object as StripeInvoice;
        const subscriptionId = invoiceSubscriptionId(invoice);
        if (!subscriptionId || invoice.billing_reason === 'subscription_create') return; // handled by the checkout session
        const charge = {
          provider: 'stripe',
          transactionId: invoice.id ?? `invoice:${event.id}`,
          amountCents: invoice.amount_paid,
          currency: invoice.currency,
          periodEnd: invoicePeriodEnd(invoice),
          providerSubscriptionId: subscriptionId,
          refund: invoicePaymentRefs(invoice),
        };
        // A subscription SecureRing asked Stripe to cancel (replaced, or its customer deleted).
        const cancelled = await new ProviderActionRepository(this.ctx.db).find(
          'stripe',
          'cancel_subscription',
          subscriptionId,
        );
        const subscription =
          (await this.subscriptions.findByProviderRef('stripe', subscriptionId)) ??
          (cancelled?.subscription_id
            ? await this.subscriptions.findById(cancelled.subscription_id)
            : undefined);
        if (subscription) {
          // Never reactivates a replaced or cancelled subscription: recorded, flagged and refunded.
          await this.activation.renew(subscription, charge);
        } else if (cancelled) {
          await this.activation.lateChargeWithoutRow(cancelled, charge);
        }
        return;
      }
      case 'invoice.payment_failed': {
        const invoice = event.data.object as StripeInvoice;
        const subscriptionId = invoiceSubscriptionId(invoice);
        const subscription = subscriptionId
          ? await this.subscriptions.findByProviderRef('stripe', subscriptionId)
          : undefined;
        if (!subscription) return;
        await this.activation.renewalFailed(subscription, {
          provider: 'stripe',
          providerSubscriptionId: subscriptionId,
          transactionId: `${invoice.id}:attempt:${invoice.attempt_count ?? 1}`,
          amountCents: invoice.amount_due,
          currency: invoice.currency,
          reason: invoice.last_finalization_error?.message ?? 'Paiement refusé par la banque',
        });
        return;
      }
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted': {
        const remote = event.data.object as StripeSubscription;
        const subscription = await this.subscriptions.findByProviderRef('stripe', remote.id);
        if (!subscription) return;
        const now = this.ctx.clock.now();
        if (event.type === 'customer.subscription.deleted') {
          await this.subscriptions.update(subscription.id, {
            status: Date.parse(subscription.expires_at) > now.getTime() ? 'cancelled' : 'expired',
            auto_renew: 0,
            cancelled_at: subscription.cancelled_at ?? now.toISOString(),
            updated_at: now.toISOString(),
          });
          await endRingAccessIfUnsubscribed(this.ctx, subscription.customer_id);
        } else {
          await this.subscriptions.update(subscription.id, {
            auto_renew: remote.cancel_at_period_end ? 0 : 1,
            cancelled_at: remote.cancel_at_period_end
              ? (subscription.cancelled_at ?? now.toISOString())
              : null,
            updated_at: now.toISOString(),
          });
        }
        return;
      }
      default:
        return;
    }
  }

  async paypal(
    event: { id?: string; event_type?: string; resource?: Record<string, unknown> },
    headers: PaypalWebhookHeaders,
  ): Promise<WebhookOutcome> {
    const settings = await loadPaypalSettings(this.ctx.settings, this.ctx.config);
    if (!event.id || !event.event_type || !settings.webhookId) throw invalidSignature();
    const gateway = new PaypalGateway(settings);
    let verified = false;
    try {
      verified = await gateway.verifyWebhook(headers, event);
    } catch (error) {
      await this.ctx.systemLog.error('payment', 'Vérification du webhook PayPal impossible', {
        details: { error: (error as Error).message },
      });
      throw new AppError(503, 'Vérification impossible, réessayez plus tard');
    }
    if (!verified) {
      await this.ctx.systemLog.warning('payment', 'Webhook PayPal refusé : signature invalide', {
        details: { event_id: event.id },
      });
      throw invalidSignature();
    }
    return this.once('paypal', event.id, event.event_type, () =>
      this.handlePaypal(event.event_type!, event.resource ?? {}, gateway),
    );
  }

  private async handlePaypal(
    type: string,
    resource: Record<string, unknown>,
    gateway: PaypalGateway,
  ): Promise<void> {
    if (type === 'CHECKOUT.ORDER.APPROVED') {
      // The payer approved but may never come back to the return page: capture here.
      const orderId = String(resource.id ?? '');
      const payment = await this.payments.findByOrder('paypal', orderId);
      if (!payment || payment.status !== 'pending') return;
      const { capture } = await capturePaypalOrder(gateway, orderId);
      if (capture) await this.activation.complete(payment.id, captureConfirmation(capture));
      return;
    }
    if (type === 'PAYMENT.CAPTURE.COMPLETED' || type === 'PAYMENT.CAPTURE.DENIED') {
      const related = resource.supplementary_data as { related_ids?: { order_id?: string } } | undefined;
      const orderId = related?.related_ids?.order_id;
      const paymentId = typeof resource.custom_id === 'string' ? resource.custom_id : undefined;
      const payment =
        (paymentId && (await this.payments.findById(paymentId))) ||
        (orderId && (await this.payments.findByOrder('paypal', orderId))) ||
        undefined;
      if (!payment || payment.provider !== 'paypal') return;
      if (type === 'PAYMENT.CAPTURE.DENIED') {
        await this.activation.fail(payment.id, 'Paiement refusé par PayPal');
        return;
      }
      await this.activation.complete(
        payment.id,
        captureConfirmation({
          id: String(resource.id ?? ''),
          amount: resource.amount as CaptureAmount | undefined,
        }),
      );
    }
  }

  async nowpayments(body: Record<string, unknown>, signature: string | undefined): Promise<WebhookOutcome> {
    const settings = await loadNowPaymentsSettings(this.ctx.settings, this.ctx.config);
    if (!verifyNowPaymentsSignature(body, signature ?? '', settings.ipnSecret)) {
      await this.ctx.systemLog.warning('payment', 'IPN NOWPayments refusée : signature invalide');
      throw invalidSignature();
    }
    const status = String(body.payment_status ?? '');
    const eventId = `${String(body.payment_id ?? body.invoice_id ?? '')}:${status}`;
    return this.once('nowpayments', eventId, status, () => this.handleNowPayments(status, body));
  }

  private async handleNowPayments(status: string, body: Record<string, unknown>): Promise<void> {
    const payment = await this.payments.findById(String(body.order_id ?? ''));
    if (!payment || payment.provider !== 'nowpayments') return;
    const nowIso = this.ctx.clock.now().toISOString();
    const metadata = {
      ...JSON.parse(payment.metadata || '{}'),
      payment_id: body.payment_id,
      last_status: status,
      actually_paid: body.actually_paid,
      pay_currency: body.pay_currency,
    };
    switch (status) {
      case 'finished':
        await this.payments.update(payment.id, { metadata: JSON.stringify(metadata), updated_at: nowIso });
        await this.activation.complete(payment.id, {
          transactionId: String(body.payment_id ?? ''),
          paidAmountCents: Math.round(Number(body.price_amount) * 100),
          paidCurrency: String(body.price_currency ?? ''),
        });
        return;
      case 'partially_paid':
        await this.payments.update(payment.id, {
          metadata: JSON.stringify(metadata),
          failure_reason: `Paiement partiel reçu (${String(body.actually_paid)} ${String(body.pay_currency ?? '').toUpperCase()})`,
          updated_at: nowIso,
        });
        await this.ctx.systemLog.warning('payment', 'Paiement crypto partiel', {
          userId: payment.customer_id,
          details: { payment_id: payment.id, ...metadata },
        });
        return;
      case 'failed':
        await this.activation.fail(payment.id, 'Paiement crypto échoué');
        return;
      case 'expired':
        await this.activation.fail(payment.id, 'Paiement crypto expiré', 'cancelled');
        return;
      default:
        await this.payments.update(payment.id, { metadata: JSON.stringify(metadata), updated_at: nowIso });
    }
  }
}
