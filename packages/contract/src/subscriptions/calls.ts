import { z } from 'zod';
import { BILLING_CYCLES, CRYPTO_CURRENCIES } from '../constants';
import { successOf, zLooseBoolean } from '../common';

export const SUBSCRIPTION_MESSAGES = {
  loginRequiredToSelect: 'Vous devez être connecté pour sélectionner un plan',
  selectionFailed: 'Erreur lors de la sélection',
  planNotFound: 'Plan introuvable ou indisponible',
  paymentCreationFailed: 'Erreur lors de la création du paiement',
  cryptoPaymentCreationFailed: 'Erreur lors de la création du paiement crypto',
  chooseCrypto: 'Veuillez sélectionner une crypto-monnaie',
  providerUnavailable: 'Ce moyen de paiement n’est pas disponible',
  testProviderUnavailable: 'Le paiement de test n’est pas disponible',
  paymentNotFound: 'Paiement introuvable',
  portalCardOnly:
    'Le portail de paiement est réservé aux abonnements payés par carte. Pour votre abonnement, contactez-nous ou souscrivez à nouveau.',
  portalFailed: 'Impossible d’ouvrir le portail de paiement',
  noActiveSubscription: 'Aucun abonnement actif',
  cancelFailed: 'Impossible d’annuler',
  alreadyCancelled: 'Votre abonnement est déjà annulé\u202f: il ne sera pas renouvelé.',
  emailNotVerified: 'Vérifiez votre adresse email avant de souscrire.',
} as const;

const cycle = z
  .string()
  .default('monthly')
  .transform((v) => (v === 'annual' || v === 'year' ? 'yearly' : v === 'month' ? 'monthly' : v))
  .pipe(z.enum(BILLING_CYCLES, { message: 'Période de facturation invalide' }));
const planId = z
  .union([z.string(), z.number()])
  .transform(String)
  .pipe(z.string().min(1, 'Plan requis').max(64));

/** POST /api/subscriptions/store-selection.php */
export const ZStoreSelectionRequest = z.object({
  plan_id: planId,
  billing_cycle: cycle,
  video_option: zLooseBoolean.default(false),
});
export type TStoreSelectionRequest = z.input<typeof ZStoreSelectionRequest>;

export const ZSelection = z.object({
  plan_id: z.string(),
  billing_cycle: z.enum(BILLING_CYCLES),
  video_option: z.boolean(),
});
export type TSelection = z.infer<typeof ZSelection>;

/** GET current-selection.php / signup-selection.php — data is null when nothing is stored. */
export const ZSelectionResponse = successOf({ data: ZSelection.nullable() });
export type TSelectionResponse = z.infer<typeof ZSelectionResponse>;

/** POST create-checkout.php / create-paypal-checkout.php / create-test-checkout.php */
export const ZCheckoutRequest = z.object({
  plan_id: planId,
  billing_period: cycle,
  video_option: zLooseBoolean.default(false),
});
export type TCheckoutRequest = z.input<typeof ZCheckoutRequest>;

export const ZCheckoutResponse = successOf({ checkout_url: z.string(), reference: z.string() });
export type TCheckoutResponse = z.infer<typeof ZCheckoutResponse>;

/** POST create-crypto-checkout.php */
export const ZCryptoCheckoutRequest = ZCheckoutRequest.extend({
  currency: z
    .string()
    .default('')
    .transform((c) => c.trim().toUpperCase())
    .pipe(z.enum(CRYPTO_CURRENCIES, { message: SUBSCRIPTION_MESSAGES.chooseCrypto })),
});
export type TCryptoCheckoutRequest = z.input<typeof ZCryptoCheckoutRequest>;

export const ZCryptoCheckoutResponse = successOf({
  payment_url: z.string(),
  crypto_amount: z.number(),
  crypto_currency: z.enum(CRYPTO_CURRENCIES),
  amount_eur: z.number(),
  reference: z.string(),
});
export type TCryptoCheckoutResponse = z.infer<typeof ZCryptoCheckoutResponse>;

/** POST finalize-session.php {session_id} and finalize-paypal.php {paypal_order_id} */
export const ZFinalizeSessionRequest = z.object({
  session_id: z.string().trim().min(1, 'Session de paiement manquante').max(255),
});
export const ZFinalizePaypalRequest = z.object({
  paypal_order_id: z.string().trim().min(1, 'Commande PayPal manquante').max(64),
});

export const ZFinalizeResponse = successOf({
  status: z.enum(['completed', 'pending', 'failed', 'cancelled', 'refunded']),
  reference: z.string(),
  plan_name: z.string(),
  billing_cycle: z.enum(BILLING_CYCLES),
  amount: z.number(),
  currency: z.string(),
  expires_at: z.string().nullable(),
  message: z.string(),
});
export type TFinalizeResponse = z.infer<typeof ZFinalizeResponse>;

/** POST customer-portal.php */
export const ZCustomerPortalRequest = z.object({ return_url: z.string().max(2000).optional() });
export const ZCustomerPortalResponse = successOf({ portal_url: z.string() });

/** GET providers.php: which payment buttons /subscribe shows. */
export const ZPaymentProvidersResponse = successOf({
  providers: z.object({ card: z.boolean(), paypal: z.boolean(), crypto: z.boolean(), test: z.boolean() }),
});
export type TPaymentProviders = z.infer<typeof ZPaymentProvidersResponse>['providers'];

/** The local test checkout page: GET summary, POST approve or cancel. */
export const ZTestCheckoutQuery = z.object({ session_id: z.string().trim().min(1).max(100) });
export const ZTestCheckoutSummary = successOf({
  reference: z.string(),
  plan_name: z.string(),
  billing_cycle: z.enum(BILLING_CYCLES),
  video: z.boolean(),
  amount: z.number(),
  currency: z.string(),
  status: z.string(),
});
export type TTestCheckoutSummary = z.infer<typeof ZTestCheckoutSummary>;
export const ZTestCheckoutDecision = z.object({
  session_id: z.string().trim().min(1).max(100),
  action: z.enum(['approve', 'cancel'], { message: 'Action invalide' }),
});
export const ZTestCheckoutDecisionResponse = successOf({ redirect_url: z.string() });
