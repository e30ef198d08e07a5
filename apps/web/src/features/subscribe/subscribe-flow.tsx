import type { BillingCycle, TPublicPlan, TSelection } from '@securering/contract';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { PageShell } from '@/components/layout/page-shell';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { ApiError } from '@/lib/api-client';
import { useCustomerSession } from '@/lib/auth/customer-session';
import { usePlans } from '@/lib/plans';
import { CheckoutView } from './checkout-view';
import { BillingToggle, PlanPicker } from './plan-picker';
import { storeSelection, useCurrentSelection, useProviders } from './subscribe-api';

/** The plan choice and checkout of a signed-in customer. */
export function SubscribeFlow() {
  const session = useCustomerSession();
  const [params] = useSearchParams();
  const plans = usePlans();
  const providers = useProviders();
  const planParam = params.get('plan_id');
  const stored = useCurrentSelection(!planParam);
  const [cycle, setCycle] = useState<BillingCycle>(params.get('billing') === 'yearly' ? 'yearly' : 'monthly');
  const [video, setVideo] = useState<Record<string, boolean>>({});
  /** undefined until the customer acts: the selection then comes from the address or storage. */
  const [chosen, setChosen] = useState<TSelection | null | undefined>(undefined);
  const [choosing, setChoosing] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  // plan_id in the address opens the checkout at once (and is stored); otherwise a stored selection
  // (or resume=1) restores it (spec 1 §4).
  const fromAddress = useMemo<TSelection | null>(
    () =>
      planParam
        ? {
            plan_id: planParam,
            billing_cycle: params.get('billing') === 'yearly' ? 'yearly' : 'monthly',
            video_option: params.get('video') === '1',
          }
        : null,
    [planParam, params],
  );
  const initial = fromAddress ?? stored.data ?? null;
  const selection = chosen === undefined ? initial : chosen;

  const storedFromAddress = useRef(false);
  useEffect(() => {
    if (!fromAddress || storedFromAddress.current) return;
    storedFromAddress.current = true;
    storeSelection(fromAddress).catch((e: unknown) =>
      setError(
        e instanceof ApiError && e.status === 401
          ? 'Vous devez être connecté pour sélectionner un plan'
          : 'Erreur lors de la sélection',
      ),
    );
  }, [fromAddress]);

  const choose = async (next: TSelection) => {
    setError(null);
    setChoosing(next.plan_id);
    try {
      await storeSelection(next);
      setChosen(next);
      window.scrollTo({ top: 0 });
    } catch (e) {
      setError(
        e instanceof ApiError && e.status === 401
          ? 'Vous devez être connecté pour sélectionner un plan'
          : 'Erreur lors de la sélection',
      );
    } finally {
      setChoosing(null);
    }
  };

  const changePlan = () => {
    if (selection) {
      setCycle(selection.billing_cycle);
      setVideo((v) => ({ ...v, [selection.plan_id]: selection.video_option }));
    }
    setChosen(null);
  };

  const plan: TPublicPlan | undefined = selection
    ? plans.data?.find((p) => p.id === selection.plan_id)
    : undefined;
  const loading = plans.isPending || providers.isPending || (!planParam && stored.isPending);

  return (
    <PageShell
      title="Abonnement"
      heading={plan ? 'Votre abonnement' : 'Choisissez votre plan'}
      intro={plan ? undefined : 'Tous les plans incluent le chiffrement de bout en bout. Sans engagement.'}
      width="xl"
    >
      <p className="-mt-4 mb-6 flex flex-wrap items-center gap-2 text-sm text-slate-600">
        Connecté en tant que <strong>{session.customer?.email}</strong>
        <Button variant="link" size="sm" className="h-auto p-0" onClick={() => void session.logout()}>
          Se déconnecter
        </Button>
      </p>
      {error ? (
        <Alert variant="error" className="mb-6">
          {error}
        </Alert>
      ) : null}
      {loading ? (
        <div className="flex justify-center py-12">
          <Spinner label="Chargement des plans..." />
        </div>
      ) : plans.isError || providers.isError ? (
        <Alert variant="error">Erreur lors du chargement des plans</Alert>
      ) : plan && selection && providers.data ? (
        <CheckoutView
          plan={plan}
          selection={selection}
          providers={providers.data}
          onChangePlan={changePlan}
        />
      ) : (
        <>
          <div className="mb-8 flex justify-center">
            <BillingToggle value={cycle} onChange={setCycle} />
          </div>
          <PlanPicker
            plans={plans.data ?? []}
            cycle={cycle}
            video={video}
            onVideoChange={(id, on) => setVideo((v) => ({ ...v, [id]: on }))}
            pendingPlanId={choosing}
            onChoose={(p) =>
              void choose({
                plan_id: p.id,
                billing_cycle: cycle,
                video_option: p.video_option > 0 ? Boolean(video[p.id]) : true,
              })
            }
          />
        </>
      )}
    </PageShell>
  );
}
