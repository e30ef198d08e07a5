import { formatAmount, type TDashboardData } from '@securering/contract';
import {
  ArrowLeft,
  BarChart3,
  CheckCircle2,
  CreditCard,
  KeyRound,
  LogOut,
  Settings,
  ShieldCheck,
  Users,
} from 'lucide-react';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { SiteLogo } from '@/components/layout/site-header';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { useCustomerSession } from '@/lib/auth/customer-session';
import { formatDateLong } from '@/lib/dates';
import { usePageTitle } from '@/lib/site-settings';
import { ENCRYPTION_LABELS } from '@/lib/ring-labels';
import { RingSettingsTab } from './ring-settings-tab';
import { StatisticsTab } from './statistics-tab';
import { SubscriptionTab } from './subscription-tab';
import { UsersTab } from './users-tab';

const TABS = ['users', 'settings', 'subscription', 'statistics'] as const;
type Tab = (typeof TABS)[number];

/** The customer space (spec 2 §2): header, four cards, and the four tabs. */
export function CustomerDashboard({ data }: { data: TDashboardData }) {
  usePageTitle('Espace Client');
  const session = useCustomerSession();
  const [params, setParams] = useSearchParams();
  const requested = params.get('tab');
  const tab: Tab = (TABS as readonly string[]).includes(requested ?? '') ? (requested as Tab) : 'users';
  const [ringId, setRingId] = useState<string | undefined>(data.ring?.id);
  const selectedRingId = data.rings.some((r) => r.id === ringId) ? ringId : data.rings[0]?.id;
  const { customer, subscription } = data;
  const plan = subscription!;
  const available =
    plan.maxUsers < 0 ? 'Illimité' : `${Math.max(0, plan.maxUsers - plan.currentUsers)} disponibles`;

  return (
    <div className="min-h-screen bg-slate-50">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-4 px-4 py-4">
          <SiteLogo />
          <div className="flex flex-wrap items-center gap-2">
            <Button asChild variant="ghost" size="sm">
              <Link to="/">
                <ArrowLeft aria-hidden /> Retour au site
              </Link>
            </Button>
            <Button asChild size="sm">
              <Link to="/ring-access">
                <KeyRound aria-hidden /> Accéder à mon Ring
              </Link>
            </Button>
            <Button variant="outline" size="sm" onClick={() => void session.logout()}>
              <LogOut aria-hidden /> Déconnexion
            </Button>
          </div>
        </div>
        <div className="mx-auto max-w-6xl px-4 pb-6">
          <h1 className="text-2xl font-bold">
            Bienvenue {customer.first_name} {customer.last_name}
          </h1>
          <div className="mt-2 flex flex-wrap items-center gap-2 text-sm text-slate-600">
            <span>{customer.email}</span>
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

      <main className="mx-auto max-w-6xl space-y-6 px-4 py-8">
        <section aria-label="Résumé" className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          <SummaryCard
            label="Plan actuel"
            value={plan.plan}
            detail={`${formatAmount(plan.price)} €/mois`}
            icon={CreditCard}
          />
          <SummaryCard
            label="Utilisateurs"
            value={`${plan.currentUsers} / ${plan.maxUsers < 0 ? '∞' : plan.maxUsers}`}
            detail={available}
            icon={Users}
          />
          <SummaryCard
            label="Niveau de sécurité"
            value={
              data.ring
                ? ENCRYPTION_LABELS[data.ring.encryptionLevel]
                : ENCRYPTION_LABELS[plan.encryption_levels.at(-1) ?? 'standard']
            }
            detail={data.ring ? `Ring « ${data.ring.name} »` : 'Niveau maximal de votre plan'}
            icon={ShieldCheck}
          />
          <SummaryCard
            label="Statut"
            value={plan.status === 'active' ? 'Actif' : 'Inactif'}
            detail={
              plan.nextBilling
                ? `Prochain paiement : ${formatDateLong(plan.nextBilling)}`
                : `Fin le ${formatDateLong(plan.expires_at)} (sans renouvellement)`
            }
            icon={CheckCircle2}
          />
        </section>

        <Tabs
          value={tab}
          onValueChange={(value) => setParams(value === 'users' ? {} : { tab: value }, { replace: true })}
        >
          <TabsList>
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
          </TabsList>
          <TabsContent value="users">
            <UsersTab data={data} ringId={selectedRingId} onSelectRing={setRingId} />
          </TabsContent>
          <TabsContent value="settings">
            {selectedRingId ? <RingSettingsTab ringId={selectedRingId} plan={plan} /> : <NoRingYet />}
          </TabsContent>
          <TabsContent value="subscription">
            <SubscriptionTab plan={plan} />
          </TabsContent>
          <TabsContent value="statistics">
            {selectedRingId ? <StatisticsTab ringId={selectedRingId} /> : <NoRingYet />}
          </TabsContent>
        </Tabs>
      </main>
    </div>
  );
}

function SummaryCard({
  label,
  value,
  detail,
  icon: Icon,
}: {
  label: string;
  value: string;
  detail: string;
  icon: typeof Users;
}) {
  return (
    <Card>
      <CardContent className="flex items-start gap-3 pt-6">
        <Icon className="mt-1 size-5 text-primary" aria-hidden />
        <div>
          <p className="text-sm text-slate-500">{label}</p>
          <p className="text-lg font-semibold">{value}</p>
          <p className="text-sm text-slate-600">{detail}</p>
        </div>
      </CardContent>
    </Card>
  );
}

function NoRingYet() {
  return (
    <p className="rounded-lg border border-dashed border-slate-300 bg-white p-6 text-center text-slate-600">
      Créez d’abord un Ring dans l’onglet « Mes Utilisateurs ».
    </p>
  );
}
