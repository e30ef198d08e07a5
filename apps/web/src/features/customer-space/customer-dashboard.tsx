import {
  describeBilling,
  formatCount,
  hasPlanFeature,
  parseFeatures,
  type TDashboardData,
} from '@securering/contract';
import {
  ArrowLeft,
  BarChart3,
  CheckCircle2,
  CreditCard,
  KeyRound,
  LogOut,
  ScrollText,
  Settings,
  ShieldCheck,
  Users,
} from 'lucide-react';
import { Suspense, lazy, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { SiteLogo } from '@/components/layout/site-header';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { NativeSelect } from '@/components/ui/input';
import { Field } from '@/components/ui/label';
import { FullPageSpinner } from '@/components/ui/spinner';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { useToast } from '@/components/ui/toast';
import { useCustomerSession } from '@/lib/auth/customer-session';
import { useRingSession } from '@/lib/auth/ring-session';
import { formatDateLong } from '@/lib/dates';
import { usePageTitle } from '@/lib/site-settings';
import { ENCRYPTION_LABELS } from '@/lib/ring-labels';
import { useRingDetail } from './dashboard-api';
import { UsersTab } from './users-tab';

// The first tab comes with the dashboard; the others are fetched when opened.
const RingSettingsTab = lazy(() =>
  import('./ring-settings-tab').then((m) => ({ default: m.RingSettingsTab })),
);
const SubscriptionTab = lazy(() =>
  import('./subscription-tab').then((m) => ({ default: m.SubscriptionTab })),
);
const StatisticsTab = lazy(() => import('./statistics-tab').then((m) => ({ default: m.StatisticsTab })));
const JournalTab = lazy(() => import('./journal-tab').then((m) => ({ default: m.JournalTab })));

const TABS = ['users', 'settings', 'subscription', 'statistics', 'journal'] as const;
type Tab = (typeof TABS)[number];

/**
 * The customer space (spec 2 §2): header, the Ring selector, four cards and the four tabs. One
 * selection (`?ring=`) drives the cards, every tab and "Accéder à mon Ring".
 */
export function CustomerDashboard({ data }: { data: TDashboardData }) {
  usePageTitle('Espace Client');
  const session = useCustomerSession();
  const [params, setParams] = useSearchParams();
  const requested = params.get('tab');
  // « Journal » comes with the plans that list « Audit logs » (the server refuses it otherwise).
  const journal = hasPlanFeature(parseFeatures(data.subscription?.features ?? []), 'audit');
  const tab: Tab =
    (TABS as readonly string[]).includes(requested ?? '') && (requested !== 'journal' || journal)
      ? (requested as Tab)
      : 'users';
  const requestedRing = params.get('ring');
  const ringId = data.rings.some((r) => r.id === requestedRing)
    ? (requestedRing ?? undefined)
    : (data.ring?.id ?? data.rings[0]?.id);
  const ringName = data.rings.find((r) => r.id === ringId)?.name;
  const update = (change: (next: URLSearchParams) => void) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        change(next);
        return next;
      },
      { replace: true },
    );
  const selectRing = (id: string) => update((next) => next.set('ring', id));
  const selectTab = (value: string) =>
    update((next) => (value === 'users' ? next.delete('tab') : next.set('tab', value)));
  const detail = useRingDetail(ringId);
  const selectedRing = detail.data ?? (data.ring?.id === ringId ? data.ring : null);
  const { customer, subscription } = data;
  const plan = subscription!;
  const billing = describeBilling({
    price: plan.price,
    videoOption: plan.video_option,
    cycle: plan.billing_cycle,
    videoChosen: plan.video_chosen,
  });
  const seats = plan.maxUsers < 0 ? '∞' : formatCount(plan.maxUsers);
  const available =
    plan.maxUsers < 0
      ? 'sans limite'
      : `${formatCount(Math.max(0, plan.maxUsers - plan.currentUsers))} disponibles`;

  return (
    <div className="min-h-screen bg-slate-50">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-x-4 gap-y-2 px-4 py-3 sm:py-4">
          <SiteLogo />
          <div className="flex flex-wrap items-center gap-2">
            <Button asChild variant="ghost" size="sm">
              <Link to="/">
                <ArrowLeft aria-hidden /> Retour au site
              </Link>
            </Button>
            <EnterRingButton ringId={ringId} ringName={ringName} />
            <Button variant="outline" size="sm" onClick={() => void session.logout()}>
              <LogOut aria-hidden /> Déconnexion
            </Button>
          </div>
        </div>
        <div className="mx-auto max-w-6xl px-4 pb-4 sm:pb-6">
          <h1 className="text-xl font-bold sm:text-2xl">
            Bienvenue, {customer.first_name} {customer.last_name}
          </h1>
          <div className="mt-2 flex flex-wrap items-center gap-2 text-sm text-slate-600">
            <span className="break-all">{customer.email}</span>
            {customer.email_verified ? (
              <Badge variant="success">
                <CheckCircle2 className="size-3" aria-hidden /> Email vérifié
              </Badge>
            ) : null}
            <Badge variant="solid">Plan {plan.plan}</Badge>
            {plan.priority_support ? <Badge variant="warning">Support prioritaire</Badge> : null}
          </div>
        </div>
      </header>

      <main className="mx-auto max-w-6xl space-y-4 px-4 py-4 sm:space-y-6 sm:py-8">
        {data.rings.length > 1 ? (
          <div className="flex flex-wrap items-end gap-x-4 gap-y-1">
            <Field id="ring-select" label="Ring" className="w-full max-w-sm">
              <NativeSelect id="ring-select" value={ringId} onChange={(e) => selectRing(e.target.value)}>
                {data.rings.map((ring) => (
                  <option key={ring.id} value={ring.id}>
                    {ring.name}
                  </option>
                ))}
              </NativeSelect>
            </Field>
            <p className="pb-2 text-sm text-slate-500">Les cartes et les onglets portent sur ce Ring.</p>
          </div>
        ) : null}

        <section aria-label="Résumé" className="grid grid-cols-2 gap-2 sm:gap-4 lg:grid-cols-4">
          <SummaryCard label="Plan actuel" value={plan.plan} icon={CreditCard}>
            <span className="font-medium text-slate-900">{billing.amount}</span>
            <span className="block">{billing.video}</span>
            {billing.offer ? <span className="block text-emerald-700">{billing.offer}</span> : null}
          </SummaryCard>
          <SummaryCard
            label="Utilisateurs"
            value={`${formatCount(plan.currentUsers)} / ${seats}`}
            icon={Users}
          >
            {available} · tous Rings, propriétaire non compté
          </SummaryCard>
          <SummaryCard
            label="Niveau de sécurité"
            value={
              selectedRing
                ? ENCRYPTION_LABELS[selectedRing.encryptionLevel]
                : ENCRYPTION_LABELS[plan.encryption_levels.at(-1) ?? 'standard']
            }
            icon={ShieldCheck}
          >
            {selectedRing ? `Ring «\u202f${selectedRing.name}\u202f»` : 'Niveau maximal de votre plan'}
          </SummaryCard>
          <SummaryCard
            label="Statut"
            value={plan.status === 'active' ? 'Actif' : 'Inactif'}
            icon={CheckCircle2}
          >
            {plan.nextBilling
              ? `Prochain paiement\u202f: ${formatDateLong(plan.nextBilling)}`
              : `Fin le ${formatDateLong(plan.expires_at)} (sans renouvellement)`}
          </SummaryCard>
        </section>

        <Tabs value={tab} onValueChange={selectTab}>
          <TabsList className="grid w-full grid-cols-2 sm:inline-flex sm:w-auto">
            <TabsTrigger value="users">
              <Users aria-hidden /> Mes Utilisateurs
            </TabsTrigger>
            <TabsTrigger value="settings">
              <Settings aria-hidden /> Paramètres Ring
            </TabsTrigger>
            <TabsTrigger value="subscription">
              <CreditCard aria-hidden /> Abonnement
            </TabsTrigger>
            <TabsTrigger value="statistics">
              <BarChart3 aria-hidden /> Statistiques
            </TabsTrigger>
            {journal ? (
              <TabsTrigger value="journal">
                <ScrollText aria-hidden /> Journal
              </TabsTrigger>
            ) : null}
          </TabsList>
          <TabsContent value="users">
            <UsersTab data={data} ringId={ringId} ringName={ringName} onSelectRing={selectRing} />
          </TabsContent>
          <Suspense fallback={<FullPageSpinner />}>
            <TabsContent value="settings">
              {ringId ? <RingSettingsTab ringId={ringId} plan={plan} /> : <NoRingYet />}
            </TabsContent>
            <TabsContent value="subscription">
              <SubscriptionTab plan={plan} />
            </TabsContent>
            <TabsContent value="statistics">
              {ringId ? <StatisticsTab ringId={ringId} /> : <NoRingYet />}
            </TabsContent>
            {journal ? (
              <TabsContent value="journal">
                {ringId ? <JournalTab key={ringId} ringId={ringId} /> : <NoRingYet />}
              </TabsContent>
            ) : null}
          </Suspense>
        </Tabs>
      </main>
    </div>
  );
}

/**
 * "Accéder à mon Ring": the customer session opens a Ring session for the owner member of the
 * selected Ring, then the room (where the owner unlocks encryption with its personal passphrase).
 */
function EnterRingButton({ ringId, ringName }: { ringId: string | undefined; ringName: string | undefined }) {
  const ring = useRingSession();
  const navigate = useNavigate();
  const notify = useToast();
  const [pending, setPending] = useState(false);
  const enter = async () => {
    if (!ringId) return;
    setPending(true);
    const outcome = await ring.enterAsOwner(ringId);
    setPending(false);
    if (outcome.ok) {
      navigate('/ring');
      return;
    }
    notify({
      title: 'Accès au Ring impossible',
      description:
        'error' in outcome && outcome.error !== 'network'
          ? outcome.error
          : 'Impossible de se connecter au serveur',
      variant: 'error',
    });
  };
  return (
    <Button
      size="sm"
      disabled={!ringId || pending}
      title={ringName ? `Entrer dans le Ring «\u202f${ringName}\u202f»` : 'Créez d’abord un Ring'}
      onClick={() => void enter()}
    >
      <KeyRound aria-hidden /> {pending ? 'Ouverture…' : 'Accéder à mon Ring'}
    </Button>
  );
}

function SummaryCard({
  label,
  value,
  icon: Icon,
  children,
}: {
  label: string;
  value: string;
  icon: typeof Users;
  children: React.ReactNode;
}) {
  return (
    <Card>
      <CardContent className="flex items-start gap-2 p-3 sm:gap-3 sm:p-6">
        <Icon className="mt-0.5 hidden size-5 shrink-0 text-primary sm:mt-1 sm:block" aria-hidden />
        <div className="min-w-0">
          <p className="text-xs text-slate-500 sm:text-sm">{label}</p>
          <p className="font-semibold sm:text-lg">{value}</p>
          <p className="text-xs text-slate-600 sm:text-sm">{children}</p>
        </div>
      </CardContent>
    </Card>
  );
}

function NoRingYet() {
  return (
    <p className="rounded-lg border border-dashed border-slate-300 bg-white p-6 text-center text-slate-600">
      Créez d’abord un Ring dans l’onglet «&#8239;Mes Utilisateurs&#8239;».
    </p>
  );
}
