import {
  ADMIN_CUSTOMER_MESSAGES,
  ZCreateManualSubscriptionRequest,
  formatEuros,
  formatMoney,
  manualSubscriptionDefaults,
} from '@securering/contract';
import { Plus, RefreshCw } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Alert, LoadError } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { GIB, formatGo } from '@/lib/bytes';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Input, NativeSelect, Textarea } from '@/components/ui/input';
import { Field, Label } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { TableScroll } from '@/components/ui/table-scroll';
import { Switch } from '@/components/ui/switch';
import { useToast } from '@/components/ui/toast';
import { apiErrorMessage } from '@/lib/api-error-message';
import { useAdminSession } from '@/lib/auth/admin-session';
import { formatDateLong } from '@/lib/dates';
import { useActivePlans, useCreateManualSubscription, useCustomerSubscriptions } from './clients-api';
import { BILLING_CYCLE_LABELS, PROVIDER_LABELS, subscriptionBadge } from './clients-labels';

const M = ADMIN_CUSTOMER_MESSAGES;

/** "Abonnements" tab of the edit card: the customer's subscriptions and the manual subscription dialog. */
export function CustomerSubscriptions({ customerId }: { customerId: string }) {
  const session = useAdminSession();
  const subscriptions = useCustomerSubscriptions(customerId);
  const [creating, setCreating] = useState(false);
  const canCreate = session.can('client_users', 'create');

  return (
    <section aria-label="Abonnements du client" className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h4 className="font-semibold">Abonnements</h4>
        <div className="flex gap-2">
          <Button
            variant="outline"
            size="sm"
            onClick={() => void subscriptions.refetch()}
            disabled={subscriptions.isFetching}
          >
            <RefreshCw aria-hidden className={subscriptions.isFetching ? 'animate-spin' : undefined} />{' '}
            Rafraîchir
          </Button>
          {canCreate ? (
            <Button size="sm" onClick={() => setCreating(true)}>
              <Plus aria-hidden /> Nouvel abonnement
            </Button>
          ) : null}
        </div>
      </div>

      {subscriptions.isPending ? <Spinner label="Chargement des abonnements…" /> : null}
      {subscriptions.isError ? (
        <LoadError
          title={M.subscriptionsLoadFailed}
          message={apiErrorMessage(subscriptions.error, M.subscriptionsLoadFailed, M.connectionError)}
          onRetry={() => void subscriptions.refetch()}
          refreshIcon
        />
      ) : null}
      {subscriptions.data && subscriptions.data.length === 0 ? (
        <p className="py-4 text-center text-sm text-slate-500">Aucun abonnement pour ce client.</p>
      ) : null}
      {subscriptions.data && subscriptions.data.length > 0 ? (
        <TableScroll label="Abonnements du client">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-slate-200 text-slate-500">
              <tr>
                <th className="py-2 pr-4 font-medium">Plan</th>
                <th className="py-2 pr-4 font-medium">Cycle</th>
                <th className="py-2 pr-4 font-medium">Statut</th>
                <th className="py-2 pr-4 font-medium">Début</th>
                <th className="py-2 pr-4 font-medium">Expiration</th>
                <th className="py-2 pr-4 text-right font-medium">Montant</th>
                <th className="py-2 pr-4 font-medium">Fournisseur</th>
                <th className="py-2 font-medium">Ring</th>
              </tr>
            </thead>
            <tbody>
              {subscriptions.data.map((s) => {
                const badge = subscriptionBadge(s.computed_status);
                return (
                  <tr key={s.id} className="border-b border-slate-100 align-top">
                    <td className="py-2 pr-4">
                      <p className="font-medium">{s.plan_name || '—'}</p>
                      <p className="text-xs text-slate-500">
                        {s.max_users < 0 ? 'Utilisateurs illimités' : `${s.max_users} utilisateurs`} ·{' '}
                        {formatGo(s.storage_gb * GIB)}
                        {s.video_enabled ? ' · vidéo' : ''}
                        {s.auto_renew ? ' · renouvellement auto' : ''}
                      </p>
                      {s.notes ? (
                        <p className="mt-1 whitespace-pre-line text-xs text-slate-500">{s.notes}</p>
                      ) : null}
                    </td>
                    <td className="py-2 pr-4">{BILLING_CYCLE_LABELS[s.billing_cycle] ?? s.billing_cycle}</td>
                    <td className="py-2 pr-4">
                      <Badge variant={badge.tone}>{badge.label}</Badge>
                      {s.computed_status === 'active' && s.days_remaining > 0 ? (
                        <p className="mt-1 text-xs text-slate-500">
                          {s.days_remaining} jour{s.days_remaining > 1 ? 's' : ''} restant
                          {s.days_remaining > 1 ? 's' : ''}
                        </p>
                      ) : null}
                    </td>
                    <td className="whitespace-nowrap py-2 pr-4">{formatDateLong(s.starts_at)}</td>
                    <td className="whitespace-nowrap py-2 pr-4">{formatDateLong(s.expires_at)}</td>
                    <td className="whitespace-nowrap py-2 pr-4 text-right">
                      {s.transaction_amount === null
                        ? '—'
                        : formatMoney(s.transaction_amount, s.transaction_currency)}
                    </td>
                    <td className="py-2 pr-4">{PROVIDER_LABELS[s.provider] ?? s.provider}</td>
                    <td className="py-2">
                      {s.ring_name ? (
                        <>
                          {s.ring_name}
                          {!s.ring_active ? (
                            <Badge variant="neutral" className="ml-1">
                              Inactif
                            </Badge>
                          ) : null}
                        </>
                      ) : (
                        '—'
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      ) : null}

      <Dialog open={creating} onOpenChange={setCreating}>
        <DialogContent className="max-w-xl">
          <DialogHeader>
            <DialogTitle>Nouvel abonnement</DialogTitle>
            <DialogDescription>
              Abonnement accordé sans paiement. Dès sa date de début, il remplace l’abonnement en cours du
              client et applique le plan à ses Rings.
            </DialogDescription>
          </DialogHeader>
          {/* Mounted only while open: the form starts from the defaults every time. */}
          {creating ? (
            <ManualSubscriptionForm customerId={customerId} onDone={() => setCreating(false)} />
          ) : null}
        </DialogContent>
      </Dialog>
    </section>
  );
}

type ManualForm = ReturnType<typeof manualSubscriptionDefaults>;

/** A date picked in the form, at the current local time of day ("today" is now). */
function atCurrentTime(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  const now = new Date();
  return new Date(
    y!,
    m! - 1,
    d!,
    now.getHours(),
    now.getMinutes(),
    now.getSeconds(),
    now.getMilliseconds(),
  ).toISOString();
}

function ManualSubscriptionForm({ customerId, onDone }: { customerId: string; onDone: () => void }) {
  const notify = useToast();
  const plans = useActivePlans();
  const create = useCreateManualSubscription(customerId);
  const [form, setForm] = useState<ManualForm>(() => manualSubscriptionDefaults(new Date()));
  const [problem, setProblem] = useState<string | null>(null);

  const set = <K extends keyof ManualForm>(key: K, value: ManualForm[K]) =>
    setForm((current) => ({ ...current, [key]: value }));

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    const checked = ZCreateManualSubscriptionRequest.safeParse(form);
    if (!checked.success) {
      setProblem(checked.error.issues[0]?.message ?? M.subscriptionCreateFailed);
      return;
    }
    setProblem(null);
    create.mutate(
      { ...form, starts_at: atCurrentTime(form.starts_at), expires_at: atCurrentTime(form.expires_at) },
      {
        onSuccess: (res) => {
          notify({ title: res.message, variant: 'success' });
          setForm(manualSubscriptionDefaults(new Date()));
          onDone();
        },
        onError: (error) => setProblem(apiErrorMessage(error, M.subscriptionCreateFailed, M.connectionError)),
      },
    );
  };

  return (
    <form noValidate onSubmit={handleSubmit} className="grid gap-4 sm:grid-cols-2">
      <Field id="manual-plan" label="Plan" className="sm:col-span-2">
        <NativeSelect
          id="manual-plan"
          value={form.plan_id}
          onChange={(e) => set('plan_id', e.target.value)}
          disabled={plans.isPending}
        >
          <option value="">{plans.isPending ? 'Chargement des plans…' : 'Sélectionner un plan'}</option>
          {(plans.data ?? []).map((plan) => (
            <option key={plan.id} value={plan.id}>
              {plan.name} — {formatEuros(plan.price)} / mois
            </option>
          ))}
        </NativeSelect>
      </Field>
      <Field id="manual-cycle" label="Période de facturation" className="sm:col-span-2">
        <NativeSelect
          id="manual-cycle"
          value={form.billing_cycle}
          onChange={(e) => set('billing_cycle', e.target.value === 'yearly' ? 'yearly' : 'monthly')}
        >
          <option value="monthly">Mensuel</option>
          <option value="yearly">Annuel</option>
        </NativeSelect>
      </Field>
      <Field id="manual-start" label="Date de début">
        <Input
          id="manual-start"
          type="date"
          value={form.starts_at}
          onChange={(e) => set('starts_at', e.target.value)}
        />
      </Field>
      <Field id="manual-expiry" label="Date d’expiration">
        <Input
          id="manual-expiry"
          type="date"
          value={form.expires_at}
          onChange={(e) => set('expires_at', e.target.value)}
        />
      </Field>
      <div className="flex items-center gap-3">
        <Switch
          id="manual-auto-renew"
          checked={form.auto_renew}
          onCheckedChange={(v) => set('auto_renew', v)}
        />
        <Label htmlFor="manual-auto-renew">Renouvellement automatique</Label>
      </div>
      <div className="flex items-center gap-3">
        <Switch
          id="manual-video"
          checked={form.video_enabled}
          onCheckedChange={(v) => set('video_enabled', v)}
        />
        <Label htmlFor="manual-video">Option vidéo</Label>
      </div>
      <Field id="manual-notes" label="Notes" className="sm:col-span-2">
        <Textarea
          id="manual-notes"
          rows={3}
          maxLength={1000}
          value={form.notes}
          onChange={(e) => set('notes', e.target.value)}
        />
      </Field>
      {problem ? (
        <Alert variant="error" className="sm:col-span-2">
          {problem}
        </Alert>
      ) : null}
      <DialogFooter className="sm:col-span-2">
        <Button type="button" variant="outline" onClick={onDone} disabled={create.isPending}>
          Annuler
        </Button>
        <Button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Création…' : 'Créer l’abonnement'}
        </Button>
      </DialogFooter>
    </form>
  );
}
