import {
  YEARLY_OFFER_LABEL,
  ZTestCheckoutDecisionResponse,
  ZTestCheckoutSummary,
  formatEuros,
} from '@securering/contract';
import { useMutation, useQuery } from '@tanstack/react-query';
import { FlaskConical } from 'lucide-react';
import { useNavigate, useSearchParams } from 'react-router';
import { PageShell } from '@/components/layout/page-shell';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { apiRequest } from '@/lib/api-client';

/** The local test provider's checkout: approve or cancel, through the real activation path. */
export function TestCheckoutPage() {
  const [params] = useSearchParams();
  const sessionId = params.get('session_id') ?? '';
  const navigate = useNavigate();
  const summary = useQuery({
    queryKey: ['test-checkout', sessionId],
    queryFn: ({ signal }) =>
      apiRequest(`/api/subscriptions/test-checkout.php?session_id=${encodeURIComponent(sessionId)}`, {
        auth: 'customer',
        schema: ZTestCheckoutSummary,
        signal,
      }),
    enabled: Boolean(sessionId),
  });
  const decide = useMutation({
    mutationFn: (action: 'approve' | 'cancel') =>
      apiRequest('/api/subscriptions/test-checkout.php', {
        method: 'POST',
        auth: 'customer',
        body: { session_id: sessionId, action },
        schema: ZTestCheckoutDecisionResponse,
      }),
    onSuccess: (res) => navigate(res.redirect_url),
  });

  return (
    <PageShell title="Paiement de test" width="sm">
      <Alert variant="info" title="Environnement de test" className="mb-6">
        Aucun prestataire de paiement n’est configuré&#8239;: ce paiement de test n’entraîne aucun débit réel. Il
        n’existe pas en production.
      </Alert>
      <Card>
        <CardContent className="space-y-4 pt-6">
          {summary.isPending ? <Spinner label="Chargement de la commande…" /> : null}
          {summary.isError ? <Alert variant="error">{summary.error.message}</Alert> : null}
          {summary.data ? (
            <>
              <div className="flex items-center gap-3">
                <FlaskConical className="size-8 text-primary" aria-hidden />
                <div>
                  <p className="font-semibold">{summary.data.plan_name}</p>
                  <p className="text-sm text-slate-500">
                    {summary.data.billing_cycle === 'yearly' ? `Annuel (${YEARLY_OFFER_LABEL})` : 'Mensuel'}
                    {summary.data.video ? ' · option vidéo' : ''} · référence {summary.data.reference}
                  </p>
                </div>
              </div>
              <p className="text-3xl font-bold">{formatEuros(summary.data.amount)}</p>
              {summary.data.status !== 'pending' ? (
                <Alert variant="info">Cette commande est déjà traitée ({summary.data.status}).</Alert>
              ) : null}
              {decide.isError ? <Alert variant="error">{decide.error.message}</Alert> : null}
              <div className="flex flex-wrap gap-2">
                <Button
                  disabled={decide.isPending || summary.data.status !== 'pending'}
                  onClick={() => decide.mutate('approve')}
                >
                  Approuver le paiement
                </Button>
                <Button
                  variant="outline"
                  disabled={decide.isPending || summary.data.status !== 'pending'}
                  onClick={() => decide.mutate('cancel')}
                >
                  Annuler
                </Button>
              </div>
            </>
          ) : null}
        </CardContent>
      </Card>
    </PageShell>
  );
}
