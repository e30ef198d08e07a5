import {
  SUBSCRIPTION_MESSAGES,
  ZCheckoutRequest,
  ZCryptoCheckoutRequest,
  ZCustomerPortalRequest,
  ZFinalizePaypalRequest,
  ZFinalizeSessionRequest,
  ZPlanChangeQuery,
  ZStoreSelectionRequest,
  ZTestCheckoutDecision,
  ZTestCheckoutQuery,
  centsToEuros,
  paymentReference,
  type TPlanChangeResponse,
  type TSelection,
  type TSelectionResponse,
  type TTestCheckoutSummary,
} from '@securering/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context';
import { badRequest, parseInput } from '../../lib/app-error';
import { newId } from '../../lib/ids';
import { hashToken, newToken } from '../../lib/tokens';
import { customerCaller, optionalSessionToken } from '../../plugins/auth';
import { BODY_LIMITS } from '../../plugins/body-limits';
import { ipRateLimit } from '../../plugins/rate-limit';
import { requireCustomer } from '../customers/customer.guard';
import { PlanRepository } from '../plans/plan.repository';
import { CheckoutService } from './checkout.service';
import { CustomerSubscriptionService } from './customer-subscription.service';
import { SubscriptionRepository, type PlanSelectionRow } from './subscription.repository';
import { VISITOR_SELECTION_TTL_MS } from './visitor-selection-purge.job';
import { VISITOR_COOKIE, visitorHashOf } from './visitor-selection';

function toSelection(row: PlanSelectionRow | undefined): TSelection | null {
  return row
    ? { plan_id: row.plan_id, billing_cycle: row.billing_cycle, video_option: row.video_option === 1 }
    : null;
}

export async function subscriptionRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const checkout = new CheckoutService(ctx);
  const customerSubscriptions = new CustomerSubscriptionService(ctx);
  const subscriptions = new SubscriptionRepository(ctx.db);
  const plans = new PlanRepository(ctx.db);
  const customerOnly = requireCustomer(ctx);

  /**
   * The customer when a bearer (or a customer cookie with its CSRF header) is sent; undefined for
   * anonymous visitors; 401 for a bad one.
   */
  async function optionalCustomer(request: FastifyRequest) {
    if (!optionalSessionToken(request, 'customer')) return undefined;
    await customerOnly(request);
    return customerCaller(request).customer;
  }

  function visitorHash(request: FastifyRequest, reply?: FastifyReply): string | undefined {
    const existing = visitorHashOf(request);
    if (existing || !reply) return existing;
    const token = newToken(24);
    reply.setCookie(VISITOR_COOKIE, token, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: ctx.config.publicUrl.startsWith('https://'),
      maxAge: VISITOR_SELECTION_TTL_MS / 1000,
    });
    return hashToken(token);
  }

  // Each anonymous call may write a visitor row: limited per IP, and stale visitor rows are purged
  // by the visitor-selection-purge job. A customer's call only updates its own row.
  const visitorLimit = ipRateLimit(ctx.rateLimiter, 'store-selection', ctx.config.rateLimits.publicPerMinute);
  const selectionOptions = {
    bodyLimit: BODY_LIMITS.form,
    preHandler: async (request: FastifyRequest) => {
      if (!optionalSessionToken(request, 'customer')) await visitorLimit(request);
    },
  };
  app.post('/api/subscriptions/store-selection.php', selectionOptions, async (request, reply) => {
    const input = parseInput(ZStoreSelectionRequest, request.body);
    const plan = await plans.findById(input.plan_id);
    if (!plan || plan.is_active !== 1) throw badRequest(SUBSCRIPTION_MESSAGES.planNotFound);
    const customer = await optionalCustomer(request);
    const owner = customer ? { customerId: customer.id } : { visitorHash: visitorHash(request, reply)! };
    await subscriptions.upsertSelection(
      owner,
      { plan_id: plan.id, billing_cycle: input.billing_cycle, video_option: input.video_option ? 1 : 0 },
      newId(),
      ctx.clock.now().toISOString(),
    );
    return { success: true, message: 'Sélection enregistrée' };
  });

  app.get(
    '/api/subscriptions/current-selection.php',
    { preHandler: customerOnly },
    async (request): Promise<TSelectionResponse> => {
      const { customer } = customerCaller(request);
      let selection = await subscriptions.findSelection(customer.id);
      if (!selection) {
        // A choice made before signing up follows the visitor into the account.
        const hash = visitorHash(request);
        const visitor = hash ? await subscriptions.findVisitorSelection(hash) : undefined;
        if (visitor) {
          const { plan_id, billing_cycle, video_option } = visitor;
          await subscriptions.upsertSelection(
            { customerId: customer.id },
            { plan_id, billing_cycle, video_option },
            newId(),
            ctx.clock.now().toISOString(),
          );
          selection = visitor;
        }
      }
      return { success: true, data: toSelection(selection) };
    },
  );

  app.get('/api/subscriptions/signup-selection.php', async (request): Promise<TSelectionResponse> => {
    const customer = await optionalCustomer(request);
    if (customer) return { success: true, data: toSelection(await subscriptions.findSelection(customer.id)) };
    const hash = visitorHash(request);
    return {
      success: true,
      data: toSelection(hash ? await subscriptions.findVisitorSelection(hash) : undefined),
    };
  });

  app.get('/api/subscriptions/providers.php', async () => ({
    success: true,
    providers: await checkout.providers(),
  }));

  app.post('/api/subscriptions/create-checkout.php', { preHandler: customerOnly }, async (request) => {
    return checkout.startStripe(customerCaller(request).customer, parseInput(ZCheckoutRequest, request.body));
  });

  app.post('/api/subscriptions/create-paypal-checkout.php', { preHandler: customerOnly }, async (request) => {
    return checkout.startPaypal(customerCaller(request).customer, parseInput(ZCheckoutRequest, request.body));
  });

  app.post('/api/subscriptions/create-crypto-checkout.php', { preHandler: customerOnly }, async (request) => {
    return checkout.startCrypto(
      customerCaller(request).customer,
      parseInput(ZCryptoCheckoutRequest, request.body),
    );
  });

  app.post('/api/subscriptions/create-test-checkout.php', { preHandler: customerOnly }, async (request) => {
    return checkout.startTest(customerCaller(request).customer, parseInput(ZCheckoutRequest, request.body));
  });

  app.get(
    '/api/subscriptions/test-checkout.php',
    { preHandler: customerOnly },
    async (request): Promise<TTestCheckoutSummary> => {
      const { session_id } = parseInput(ZTestCheckoutQuery, request.query);
      const payment = await checkout.testCheckoutSummary(customerCaller(request).customer, session_id);
      return {
        success: true,
        reference: paymentReference(payment.id),
        plan_name: payment.plan_name,
        billing_cycle: payment.billing_cycle,
        video: payment.video_enabled === 1,
        amount: centsToEuros(payment.amount_cents),
        currency: payment.currency,
        status: payment.status,
      };
    },
  );

  app.post('/api/subscriptions/test-checkout.php', { preHandler: customerOnly }, async (request) => {
    const input = parseInput(ZTestCheckoutDecision, request.body);
    return {
      success: true,
      redirect_url: await checkout.decideTestCheckout(
        customerCaller(request).customer,
        input.session_id,
        input.action,
      ),
    };
  });

  app.post('/api/subscriptions/finalize-session.php', { preHandler: customerOnly }, async (request) => {
    const { session_id } = parseInput(ZFinalizeSessionRequest, request.body);
    return checkout.finalizeSession(customerCaller(request).customer, session_id);
  });

  app.post('/api/subscriptions/finalize-paypal.php', { preHandler: customerOnly }, async (request) => {
    const { paypal_order_id } = parseInput(ZFinalizePaypalRequest, request.body);
    return checkout.finalizePaypal(customerCaller(request).customer, paypal_order_id);
  });

  app.post('/api/subscriptions/customer-portal.php', { preHandler: customerOnly }, async (request) => {
    const { return_url } = parseInput(ZCustomerPortalRequest, request.body ?? {});
    return {
      success: true,
      portal_url: await customerSubscriptions.portalUrl(customerCaller(request).customer, return_url),
    };
  });

  app.get(
    '/api/subscriptions/plan-change.php',
    { preHandler: customerOnly },
    async (request): Promise<TPlanChangeResponse> => {
      const { plan_id } = parseInput(ZPlanChangeQuery, request.query);
      return {
        success: true,
        change: await customerSubscriptions.planChange(customerCaller(request).customer, plan_id),
      };
    },
  );

  app.post('/api/subscriptions/cancel.php', { preHandler: customerOnly }, async (request) => {
    return { success: true, message: await customerSubscriptions.cancel(customerCaller(request).customer) };
  });
}
