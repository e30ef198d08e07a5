import { z } from 'zod';
import { successOf } from '../common';

/**
 * What a payment does to the subscription a customer already holds (one active subscription per
 * customer): the same plan again adds the new period after the current end (the time left is kept);
 * another plan replaces the current one at once, and the time left on it is lost (neither refunded
 * nor carried over). Either way, the automatic card renewal of the subscription it follows stops.
 */
export type PlanChangeKind = 'extend' | 'replace';

/** The one rule the activation applies and the checkout explains. */
export function planChangeKind(currentPlanId: string, newPlanId: string): PlanChangeKind {
  return currentPlanId === newPlanId ? 'extend' : 'replace';
}

export interface PlanChangeFacts {
  kind: PlanChangeKind;
  currentPlanName: string;
  /** "22 décembre 2026": the current subscription's end, in words. */
  currentEndLabel: string;
  /** Whole days left on the current subscription. */
  daysLeft: number;
  /** The current subscription renews by card (Stripe): its renewal is stopped by the payment. */
  renewsByCard: boolean;
}

/** The sentence the checkout shows before payment, true to what the activation does. */
export function describePlanChange(f: PlanChangeFacts): string {
  const many = f.daysLeft > 1;
  const left = many ? `Les ${f.daysLeft}\u00a0jours restants sont` : 'Le jour restant est';
  const s = many ? 's' : '';
  const stop = f.renewsByCard ? ' Son prélèvement automatique par carte est arrêté.' : '';
  if (f.kind === 'extend') {
    return `Vous avez déjà le plan ${f.currentPlanName} jusqu’au ${f.currentEndLabel}. La période payée s’ajoute à la suite. ${left} conservé${s}.${stop}`;
  }
  return `Votre plan ${f.currentPlanName} (jusqu’au ${f.currentEndLabel}) sera remplacé dès le paiement. ${left} perdu${s}, ni remboursé${s} ni reporté${s}.${stop}`;
}

/** GET /api/subscriptions/plan-change.php?plan_id=… (customer bearer) */
export const ZPlanChangeQuery = z.object({
  plan_id: z.string().trim().min(1, 'Plan requis').max(64),
});

/** change is null when the customer holds no active subscription. */
export const ZPlanChangeResponse = successOf({
  change: z
    .object({
      kind: z.enum(['extend', 'replace']),
      current_plan_name: z.string(),
      current_expires_at: z.string(),
      days_left: z.number().int(),
      renews_by_card: z.boolean(),
      message: z.string(),
    })
    .nullable(),
});
export type TPlanChangeResponse = z.infer<typeof ZPlanChangeResponse>;
