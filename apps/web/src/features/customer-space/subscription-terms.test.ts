import { describe, expect, it } from 'vitest';
import { subscriptionTerms } from './subscription-terms';

const date = (iso: string) => iso.slice(0, 10);
const base = {
  status: 'active' as const,
  expires_at: '2027-11-24T10:00:00.000Z',
  billing_cycle: 'yearly' as const,
  cancelled_at: null,
};

describe('subscriptionTerms', () => {
  it('offers the payment portal and cancellation for a renewing card subscription', () => {
    const terms = subscriptionTerms({ ...base, payment_provider: 'stripe', auto_renew: true }, date);
    expect(terms).toEqual({
      method: 'Carte bancaire',
      renewal: 'Prélevé automatiquement sur votre carte le 2027-11-24, puis chaque année.',
      portal: true,
      cancel: { allowed: true, reason: null },
    });
  });

  it('says why a cancelled card subscription cannot be cancelled again', () => {
    const terms = subscriptionTerms(
      { ...base, payment_provider: 'stripe', auto_renew: false, cancelled_at: '2026-12-01T09:00:00.000Z' },
      date,
    );
    expect(terms.portal).toBe(true);
    expect(terms.cancel).toEqual({
      allowed: false,
      reason: 'Déjà annulé le 2026-12-01\u202f: l’abonnement reste actif jusqu’au 2027-11-24, sans renouvellement.',
    });
  });

  it('has no portal for PayPal, crypto or test payments and says how they are paid and renewed', () => {
    for (const [provider, method] of [
      ['paypal', 'PayPal (paiement unique)'],
      ['nowpayments', 'Crypto-monnaie (paiement unique)'],
      ['test', 'Paiement de test (aucun débit réel)'],
    ] as const) {
      const terms = subscriptionTerms({ ...base, payment_provider: provider, auto_renew: false }, date);
      expect(terms.method).toBe(method);
      expect(terms.portal).toBe(false);
      expect(terms.renewal).toContain('sans prélèvement automatique');
      expect(terms.renewal).toContain('7 jours avant le 2027-11-24');
      expect(terms.cancel).toEqual({
        allowed: false,
        reason: 'Rien à annuler\u202f: ce paiement ne se renouvelle pas, l’abonnement prendra fin le 2027-11-24.',
      });
    }
  });

  it('explains a subscription granted by the administration', () => {
    const terms = subscriptionTerms({ ...base, payment_provider: 'manual', auto_renew: false }, date);
    expect(terms.method).toBe('Attribué par l’administration');
    expect(terms.portal).toBe(false);
    expect(terms.cancel.allowed).toBe(false);
    expect(terms.cancel.reason).toContain('prendra fin le 2027-11-24');
  });

  it('refuses to cancel an inactive subscription and says so', () => {
    const terms = subscriptionTerms(
      { ...base, status: 'inactive', payment_provider: 'stripe', auto_renew: true },
      date,
    );
    expect(terms.cancel).toEqual({ allowed: false, reason: 'L’abonnement n’est plus actif.' });
  });
});
