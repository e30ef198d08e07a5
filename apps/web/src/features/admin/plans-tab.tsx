import {
  formatDiskSpace,
  formatEuros,
  frenchTypography,
  videoOptionPriceLabel,
  type TAdminPlan,
} from '@securering/contract';
import { ArrowDown, ArrowUp, Check, Pencil, Plus, Star, Trash2 } from 'lucide-react';
import { useState } from 'react';
import { LoadError } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Label } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { Switch } from '@/components/ui/switch';
import { useToast } from '@/components/ui/toast';
import { apiErrorMessage } from '@/lib/api-error-message';
import { useAdminSession } from '@/lib/auth/admin-session';
import { movedIds, useAdminPlans, useDeletePlan, useOrderPlans, useTogglePlan } from './plans-api';
import { PlanEditorDialog } from './plans-editor-dialog';

const limitLabel = (n: number) => (n < 0 ? 'Illimité' : String(n));

/** "Plans": every plan as a card with create, edit, delete, and the active / popular switches. */
export function PlansTab() {
  const session = useAdminSession();
  const plans = useAdminPlans();
  const remove = useDeletePlan();
  const reorder = useOrderPlans();
  const notify = useToast();
  // The editor is keyed by what it edits (and each opening), so it always starts from fresh values.
  const [editor, setEditor] = useState<{ plan: TAdminPlan | undefined; key: number } | null>(null);
  const [deleting, setDeleting] = useState<TAdminPlan | null>(null);

  const confirmDelete = () => {
    if (!deleting) return;
    remove.mutate(deleting.id, {
      onSuccess: (res) => notify({ title: res.message, variant: 'success' }),
      onError: (error) =>
        notify({
          title: 'Impossible de supprimer le plan.',
          description: apiErrorMessage(error, 'Impossible de supprimer le plan.'),
          variant: 'error',
        }),
      onSettled: () => setDeleting(null),
    });
  };

  const move = (index: number, step: -1 | 1) => {
    if (!plans.data) return;
    reorder.mutate(
      movedIds(
        plans.data.map((p) => p.id),
        index,
        step,
      ),
      {
        onSuccess: (res) => notify({ title: res.message, variant: 'success' }),
        onError: (error) =>
          notify({
            title: 'Impossible de sauvegarder le plan.',
            description: apiErrorMessage(error, 'Impossible de sauvegarder le plan.'),
            variant: 'error',
          }),
      },
    );
  };

  return (
    <section aria-label="Plans" className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div>
          <h2 className="text-xl font-semibold">Plans d’abonnement</h2>
          <p className="text-sm text-slate-600">
            Prix mensuels en euros. Seuls les plans actifs sont proposés sur le site, dans l’ordre ci-dessous
            (▲ / ▼)&#8239;; les plans «&#8239;Populaire&#8239;» y sont mis en avant.
          </p>
        </div>
        {session.can('plans', 'create') ? (
          <Button onClick={() => setEditor({ plan: undefined, key: Date.now() })}>
            <Plus aria-hidden /> Nouveau plan
          </Button>
        ) : null}
      </div>

      {plans.isPending ? (
        <Spinner label="Chargement des plans…" />
      ) : plans.isError ? (
        <LoadError message={plans.error.message} onRetry={() => void plans.refetch()} />
      ) : plans.data.length === 0 ? (
        <Card>
          <CardContent className="pt-6 text-sm text-slate-600">Aucun plan pour le moment.</CardContent>
        </Card>
      ) : (
        <div className="grid gap-4 md:grid-cols-2 xl:grid-cols-3">
          {plans.data.map((plan, index) => (
            <PlanCard
              key={plan.id}
              plan={plan}
              position={{
                first: index === 0,
                last: index === plans.data.length - 1,
                pending: reorder.isPending,
                onMove: (step) => move(index, step),
              }}
              canEdit={session.can('plans', 'edit')}
              canDelete={session.can('plans', 'delete')}
              onEdit={() => setEditor({ plan, key: Date.now() })}
              onDelete={() => setDeleting(plan)}
            />
          ))}
        </div>
      )}

      {editor ? (
        <PlanEditorDialog
          key={`${editor.plan?.id ?? 'new'}-${editor.key}`}
          plan={editor.plan}
          open
          onOpenChange={(open) => {
            if (!open) setEditor(null);
          }}
        />
      ) : null}

      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(open) => {
          if (!open) setDeleting(null);
        }}
        title="Supprimer le plan&#8239;?"
        description={
          deleting
            ? deleting.subscriptions_count > 0
              ? `Le plan «\u202f${deleting.name}\u202f» est utilisé par ${deleting.subscriptions_count} abonnement(s)\u202f: la suppression sera refusée, désactivez-le plutôt.`
              : `Le plan «\u202f${deleting.name}\u202f» sera supprimé définitivement.`
            : undefined
        }
        confirmLabel="Supprimer"
        pending={remove.isPending}
        onConfirm={confirmDelete}
      />
    </section>
  );
}

function PlanCard({
  plan,
  position,
  canEdit,
  canDelete,
  onEdit,
  onDelete,
}: {
  plan: TAdminPlan;
  position: { first: boolean; last: boolean; pending: boolean; onMove: (step: -1 | 1) => void };
  canEdit: boolean;
  canDelete: boolean;
  onEdit: () => void;
  onDelete: () => void;
}) {
  const toggle = useTogglePlan();
  const notify = useToast();
  const switchFlag = (input: { id: string; active: boolean } | { id: string; popular: boolean }) =>
    toggle.mutate(input, {
      onSuccess: (res) => notify({ title: res.message, variant: 'success' }),
      onError: (error) =>
        notify({
          title: 'Impossible de sauvegarder le plan.',
          description: apiErrorMessage(error, 'Impossible de sauvegarder le plan.'),
          variant: 'error',
        }),
    });
  // While the change is on its way, the switch shows the value asked for.
  const pending = toggle.isPending ? toggle.variables : undefined;
  const active = pending && 'active' in pending ? pending.active : plan.active;
  const popular = pending && 'popular' in pending ? pending.popular : plan.popular;

  return (
    <Card role="article" className={plan.active ? undefined : 'opacity-75'} aria-label={`Plan ${plan.name}`}>
      <CardHeader>
        <div className="flex items-start justify-between gap-2">
          <CardTitle>{plan.name}</CardTitle>
          <div className="flex flex-wrap justify-end gap-1">
            {plan.popular ? (
              <Badge variant="solid">
                <Star className="size-3" aria-hidden /> Populaire
              </Badge>
            ) : null}
            {plan.active ? <Badge variant="success">Actif</Badge> : <Badge variant="neutral">Inactif</Badge>}
          </div>
        </div>
        <CardDescription>
          <span className="text-2xl font-bold text-slate-900">{formatEuros(plan.price)}</span> / mois
          {' · '}
          {plan.video_option > 0 ? `vidéo ${videoOptionPriceLabel(plan.video_option)}` : 'vidéo incluse'}
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-3">
        <dl className="grid grid-cols-2 gap-x-4 gap-y-1 text-sm">
          <dt className="text-slate-500">Utilisateurs</dt>
          <dd>{limitLabel(plan.max_users)}</dd>
          <dt className="text-slate-500">Rings</dt>
          <dd>{limitLabel(plan.max_rings)}</dd>
          <dt className="text-slate-500">Espace disque</dt>
          <dd>{formatDiskSpace(plan.storage_bytes)}</dd>
          <dt className="text-slate-500">Abonnés actifs</dt>
          <dd>{plan.subscribers_count}</dd>
        </dl>
        <ul className="space-y-1 text-sm">
          {plan.features.map((feature) => (
            <li key={feature} className="flex items-start gap-2">
              <Check className="mt-0.5 size-4 shrink-0 text-emerald-600" aria-hidden />
              {frenchTypography(feature)}
            </li>
          ))}
        </ul>
        <div className="flex flex-wrap gap-4 border-t border-slate-100 pt-3">
          <div className="flex items-center gap-2">
            <Switch
              id={`plan-active-${plan.id}`}
              checked={active}
              disabled={!canEdit || toggle.isPending}
              onCheckedChange={(v) => switchFlag({ id: plan.id, active: v })}
            />
            <Label htmlFor={`plan-active-${plan.id}`}>Actif</Label>
          </div>
          <div className="flex items-center gap-2">
            <Switch
              id={`plan-popular-${plan.id}`}
              checked={popular}
              disabled={!canEdit || toggle.isPending}
              onCheckedChange={(v) => switchFlag({ id: plan.id, popular: v })}
            />
            <Label htmlFor={`plan-popular-${plan.id}`}>Populaire</Label>
          </div>
        </div>
      </CardContent>
      {canEdit || canDelete ? (
        <CardFooter>
          {canEdit ? (
            <Button variant="outline" size="sm" onClick={onEdit}>
              <Pencil aria-hidden /> Modifier
            </Button>
          ) : null}
          {canEdit ? (
            <>
              <Button
                variant="ghost"
                size="sm"
                aria-label={`Monter le plan ${plan.name}`}
                title="Monter"
                disabled={position.first || position.pending}
                onClick={() => position.onMove(-1)}
              >
                <ArrowUp aria-hidden />
              </Button>
              <Button
                variant="ghost"
                size="sm"
                aria-label={`Descendre le plan ${plan.name}`}
                title="Descendre"
                disabled={position.last || position.pending}
                onClick={() => position.onMove(1)}
              >
                <ArrowDown aria-hidden />
              </Button>
            </>
          ) : null}
          {canDelete ? (
            <Button variant="ghost" size="sm" className="text-red-600 hover:bg-red-50" onClick={onDelete}>
              <Trash2 aria-hidden /> Supprimer
            </Button>
          ) : null}
        </CardFooter>
      ) : null}
    </Card>
  );
}
