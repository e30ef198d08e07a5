import {
  YEARLY_OFFER_LABEL,
  formatEuros,
  quotePrice,
  type BillingCycle,
  type TPublicPlan,
} from '@securering/contract';
import { PlanFeatureList } from '@/components/plan-feature-list';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Switch } from '@/components/ui/switch';
import { Label } from '@/components/ui/label';
import { formatLimit, videoOptionLabel } from '@/lib/plans';
import { cn } from '@/lib/utils';

export function BillingToggle({
  value,
  onChange,
}: {
  value: BillingCycle;
  onChange: (cycle: BillingCycle) => void;
}) {
  return (
    <div
      role="radiogroup"
      aria-label="Période de facturation"
      className="inline-flex rounded-full border border-slate-200 bg-white p-1"
    >
      {(['monthly', 'yearly'] as const).map((cycle) => (
        <button
          key={cycle}
          type="button"
          role="radio"
          aria-checked={value === cycle}
          onClick={() => onChange(cycle)}
          className={cn(
            'inline-flex min-h-11 items-center rounded-full px-4 py-1.5 text-sm font-medium',
            value === cycle ? 'bg-primary text-white' : 'text-slate-600 hover:text-slate-900',
          )}
        >
          {cycle === 'monthly' ? 'Mensuel' : 'Annuel'}
          {cycle === 'yearly' ? (
            <span
              className={cn(
                'ml-2 rounded-full px-1.5 text-xs',
                value === cycle ? 'bg-white/20' : 'bg-emerald-100 text-emerald-700',
              )}
            >
              {YEARLY_OFFER_LABEL}
            </span>
          ) : null}
        </button>
      ))}
    </div>
  );
}

export function PlanPicker({
  plans,
  cycle,
  video,
  onVideoChange,
  onChoose,
  pendingPlanId,
}: {
  plans: TPublicPlan[];
  cycle: BillingCycle;
  video: Record<string, boolean>;
  onVideoChange: (planId: string, on: boolean) => void;
  onChoose: (plan: TPublicPlan) => void;
  pendingPlanId: string | null;
}) {
  return (
    <div className="grid gap-6 md:grid-cols-3">
      {plans.map((plan) => {
        // The back office's « Populaire » switch decides the highlight (issue 25), not the position.
        const popular = plan.popular;
        const quote = quotePrice(
          { priceCents: Math.round(plan.price * 100), videoOptionCents: Math.round(plan.video_option * 100) },
          cycle,
          Boolean(video[plan.id]),
        );
        const yearly = cycle === 'yearly';
        return (
          <article
            key={plan.id}
            aria-label={`Plan ${plan.name}`}
            className={cn(
              'relative flex flex-col rounded-2xl border bg-white p-6 shadow-sm',
              popular ? 'border-2 border-primary shadow-lg' : 'border-slate-200',
            )}
          >
            {popular ? (
              <Badge variant="solid" className="absolute -top-3 left-1/2 -translate-x-1/2">
                Populaire
              </Badge>
            ) : null}
            <h2 className="text-xl font-bold">{plan.name}</h2>
            <p className="mt-4">
              <span className="text-3xl font-extrabold">{formatEuros(quote.amountCents / 100)}</span>
              <span className="text-slate-500"> / {yearly ? 'an' : 'mois'}</span>
            </p>
            {yearly ? (
              <p className="text-sm text-slate-500">
                <s aria-label={`Au lieu de ${formatEuros(quote.compareAtCents / 100)}`}>
                  {formatEuros(quote.compareAtCents / 100)}
                </s>{' '}
                <span className="font-medium text-emerald-700">{YEARLY_OFFER_LABEL}</span>
              </p>
            ) : null}
            <p className="mt-2 text-sm text-slate-600">Utilisateurs&#8239;: {formatLimit(plan.max_users)}</p>
            <PlanFeatureList features={plan.features} className="mt-4" />
            <div className="mt-4 flex items-center justify-between gap-3 rounded-lg bg-slate-50 p-3">
              {plan.video_option > 0 ? (
                <>
                  <Label htmlFor={`video-${plan.id}`} className="text-sm">
                    Option vidéo{' '}
                    <span className="text-slate-500">
                      {videoOptionLabel(
                        yearly ? plan.video_option * 10 : plan.video_option,
                        yearly ? 'an' : 'mois',
                      )}
                    </span>
                  </Label>
                  <Switch
                    id={`video-${plan.id}`}
                    checked={Boolean(video[plan.id])}
                    onCheckedChange={(on) => onVideoChange(plan.id, on)}
                  />
                </>
              ) : (
                <span className="text-sm text-emerald-700">✓ Vidéo incluse</span>
              )}
            </div>
            <Button
              className="mt-4"
              variant={popular ? 'default' : 'outline'}
              disabled={pendingPlanId !== null}
              onClick={() => onChoose(plan)}
            >
              {pendingPlanId === plan.id ? 'Sélection…' : 'Choisir ce plan'}
            </Button>
          </article>
        );
      })}
    </div>
  );
}
