import { formatEuros, type TPublicPlan } from '@securering/contract';
import { Users } from 'lucide-react';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { PlanFeatureList } from '@/components/plan-feature-list';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { useCustomerSession } from '@/lib/auth/customer-session';
import { formatLimit, storeVisitorSelection, usePlans, videoOptionLabel } from '@/lib/plans';
import { cn } from '@/lib/utils';

/** Active plans in the back office's order; those marked popular carry the "Populaire" badge and are highlighted. */
export function PlansGrid() {
  const plans = usePlans();
  const session = useCustomerSession();
  const navigate = useNavigate();
  const [starting, setStarting] = useState<string | null>(null);

  /** A signed-in customer goes straight to the checkout; a visitor's choice is kept through sign-up. */
  const start = async (plan: TPublicPlan) => {
    if (session.customer) {
      void navigate(`/subscribe?plan_id=${encodeURIComponent(plan.id)}&billing=monthly`);
      return;
    }
    setStarting(plan.id);
    await storeVisitorSelection(plan);
    void navigate('/register');
  };
  if (plans.isPending) {
    return (
      <div className="flex justify-center py-12">
        <Spinner label="Chargement des plans..." />
      </div>
    );
  }
  if (plans.isError) return <Alert variant="error">Erreur lors du chargement des plans</Alert>;
  return (
    <div className="grid gap-6 md:grid-cols-3">
      {plans.data.map((plan) => {
        const popular = plan.popular;
        return (
          <article
            key={plan.id}
            aria-label={`Plan ${plan.name}`}
            className={cn(
              'relative flex flex-col rounded-2xl border bg-white p-6 shadow-sm',
              popular ? 'border-2 border-primary shadow-lg md:-translate-y-2' : 'border-slate-200',
            )}
          >
            {popular ? (
              <Badge variant="solid" className="absolute -top-3 left-1/2 -translate-x-1/2">
                Populaire
              </Badge>
            ) : null}
            <h3 className="text-xl font-bold">{plan.name}</h3>
            <p className="mt-4">
              <span className="text-4xl font-extrabold">{formatEuros(plan.price)}</span>
              <span className="text-slate-500"> / mois</span>
            </p>
            <p className="mt-2 flex items-center gap-2 text-sm text-slate-600">
              <Users className="size-4" aria-hidden /> Utilisateurs&#8239;: {formatLimit(plan.max_users)}
            </p>
            <PlanFeatureList features={plan.features} className="mt-6" />
            <p className="mt-6 text-sm font-medium text-slate-700">
              Vidéo&#8239;:{' '}
              <span className={plan.video_option > 0 ? 'text-slate-900' : 'text-emerald-700'}>
                {videoOptionLabel(plan.video_option)}
              </span>
            </p>
            <Button
              className="mt-4"
              variant={popular ? 'default' : 'outline'}
              disabled={starting !== null}
              onClick={() => void start(plan)}
            >
              Commencer
            </Button>
          </article>
        );
      })}
    </div>
  );
}
