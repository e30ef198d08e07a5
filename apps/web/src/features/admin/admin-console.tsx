import { ADMIN_ROLE_LABELS, formatCount, formatEuros, type AdminModule } from '@securering/contract';
import {
  Activity,
  ArrowLeft,
  CreditCard,
  Database,
  Globe,
  LayoutDashboard,
  LogOut,
  Mail,
  Package,
  Radio,
  Receipt,
  ScrollText,
  UserCog,
  Users,
  Wrench,
} from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { Label } from '@/components/ui/label';
import { Switch } from '@/components/ui/switch';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { useToast } from '@/components/ui/toast';
import { useAdminSession } from '@/lib/auth/admin-session';
import { usePageTitle, useSettings } from '@/lib/site-settings';
import { useAdminStats, useAppVersion, useSystemHealth } from './admin-api';
import { AdminsTab } from './admins-tab';
import { BackupTab } from './backup-tab';
import { ClientsTab } from './clients-tab';
import { DashboardTab } from './dashboard-tab';
import { EmailsTab } from './emails-tab';
import { LogsTab } from './logs-tab';
import { PaymentsTab } from './payments-tab';
import { PlansTab } from './plans-tab';
import { RingsTab } from './rings-tab';
import { useSaveSettings } from './settings-api';
import { SiteTab } from './site-tab';
import { TransactionsTab } from './transactions-tab';

/** Tabs and the module each needs (spec 3 §2.2); the dashboard is always visible. */
const TABS: Array<{
  value: string;
  label: string;
  module: AdminModule | null;
  icon: typeof Users;
  Component: () => React.JSX.Element;
}> = [
  {
    value: 'dashboard',
    label: 'Tableau de bord',
    module: null,
    icon: LayoutDashboard,
    Component: DashboardTab,
  },
  { value: 'clients', label: 'Clients', module: 'client_users', icon: Users, Component: ClientsTab },
  { value: 'emails', label: 'Emails', module: 'email_management', icon: Mail, Component: EmailsTab },
  { value: 'plans', label: 'Plans', module: 'plans', icon: Package, Component: PlansTab },
  {
    value: 'payments',
    label: 'Paiements',
    module: 'payment_settings',
    icon: CreditCard,
    Component: PaymentsTab,
  },
  {
    value: 'transactions',
    label: 'Transactions',
    module: 'transactions',
    icon: Receipt,
    Component: TransactionsTab,
  },
  { value: 'backup', label: 'Sauvegarde', module: 'backup', icon: Database, Component: BackupTab },
  { value: 'site', label: 'Site', module: 'site_settings', icon: Globe, Component: SiteTab },
  { value: 'rings', label: 'Rings', module: 'site_settings', icon: Radio, Component: RingsTab },
  {
    value: 'admins',
    label: 'Administrateurs',
    module: 'admin_management',
    icon: UserCog,
    Component: AdminsTab,
  },
  { value: 'logs', label: 'Journaux', module: 'system_logs', icon: ScrollText, Component: LogsTab },
];

export function AdminConsole() {
  usePageTitle('Administration');
  const session = useAdminSession();
  const admin = session.admin!;
  const stats = useAdminStats();
  const health = useSystemHealth();
  const version = useAppVersion();
  const visible = TABS.filter((tab) => tab.module === null || session.can(tab.module));
  const [tab, setTab] = useState('dashboard');
  const maintenance = useSettings('maintenance').data?.maintenance_mode === '1';
  const smtpMissing = stats.data?.smtpConfigured === false;

  return (
    <div className="min-h-screen bg-slate-100">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center justify-between gap-3 px-4 py-3">
          <div>
            <h1 className="text-xl font-bold">Administration</h1>
            <p className="text-sm text-slate-600">
              {admin.username} · {ADMIN_ROLE_LABELS[admin.role]}
            </p>
          </div>
          <div className="flex flex-wrap items-center gap-2">
            {health.data === false || health.isError ? (
              <Badge variant="danger">
                <Activity className="size-3" aria-hidden /> Système indisponible
              </Badge>
            ) : maintenance ? (
              <Badge variant="warning">
                <Wrench className="size-3" aria-hidden /> Maintenance active
              </Badge>
            ) : (
              <Badge variant="success">
                <Activity className="size-3" aria-hidden /> Système opérationnel
              </Badge>
            )}
            {version.data ? <Badge variant="neutral">v{version.data}</Badge> : null}
            <MaintenanceSwitch />
            <Button asChild variant="ghost" size="sm">
              <Link to="/">
                <ArrowLeft aria-hidden /> Retour au site
              </Link>
            </Button>
            <Button variant="outline" size="sm" onClick={() => void session.logout()}>
              <LogOut aria-hidden /> Déconnexion
            </Button>
          </div>
        </div>
      </header>

      <main className="mx-auto max-w-7xl space-y-4 px-4 py-4 sm:space-y-6 sm:py-6">
        {maintenance ? (
          <Alert variant="warning" title="Maintenance active">
            Le site public affiche la page de maintenance à tous les visiteurs non administrateurs.
            Désactivez le mode maintenance dans l’en-tête pour le rouvrir.
          </Alert>
        ) : null}
        {smtpMissing ? (
          <Alert variant="warning" title="SMTP non configuré — les emails restent dans la file">
            Aucun email ne part (vérification, réinitialisation, invitations, paiements)&#8239;: ils sont
            écrits dans le journal du serveur au lieu d’être envoyés.
            {session.can('email_management') ? ' Renseignez le serveur SMTP dans l’onglet «\u202fEmails\u202f».' : ''}
          </Alert>
        ) : null}
        <section aria-label="Indicateurs" className="grid grid-cols-2 gap-2 sm:gap-4 lg:grid-cols-4">
          <StatCard
            label="Clients"
            value={stats.data ? formatCount(stats.data.totalCustomers) : '…'}
            detail="comptes au total"
          />
          <StatCard
            label="Abonnements actifs"
            value={stats.data ? formatCount(stats.data.activeSubscriptions) : '…'}
            detail={
              stats.data ? `${String(stats.data.conversionRate).replace('.', ',')}\u202f% de conversion` : ''
            }
          />
          <StatCard
            label="Revenu du mois"
            value={stats.data ? formatEuros(stats.data.monthlyRevenue) : '…'}
            detail={
              stats.data
                ? `${formatCount(stats.data.transactionsThisMonth)} transaction${stats.data.transactionsThisMonth > 1 ? 's' : ''}`
                : ''
            }
          />
          <StatCard
            label="Rings actifs"
            value={stats.data ? formatCount(stats.data.activeRings) : '…'}
            detail={stats.data ? `${formatCount(stats.data.messagesLastMonth)} messages ce mois-ci` : ''}
          />
        </section>

        <Tabs value={visible.some((t) => t.value === tab) ? tab : 'dashboard'} onValueChange={setTab}>
          <TabsList>
            {visible.map(({ value, label, icon: Icon }) => (
              <TabsTrigger key={value} value={value}>
                <Icon aria-hidden /> {label}
              </TabsTrigger>
            ))}
          </TabsList>
          {visible.map(({ value, Component }) => (
            <TabsContent key={value} value={value}>
              <Component />
            </TabsContent>
          ))}
        </Tabs>
      </main>
    </div>
  );
}

function StatCard({ label, value, detail }: { label: string; value: string; detail: string }) {
  return (
    <Card>
      <CardContent className="p-3 sm:p-6">
        <p className="text-xs text-slate-500 sm:text-sm">{label}</p>
        <p className="text-lg font-bold sm:text-2xl">{value}</p>
        <p className="text-xs text-slate-600 sm:text-sm">{detail}</p>
      </CardContent>
    </Card>
  );
}

/** Maintenance needs the edit right on site settings; the server checks it again. */
function MaintenanceSwitch() {
  const session = useAdminSession();
  const notify = useToast();
  const maintenance = useSettings('maintenance');
  const on = maintenance.data?.maintenance_mode === '1';
  const save = useSaveSettings();
  const toggle = (next: boolean) => {
    if (!session.can('site_settings', 'edit')) {
      notify({ title: 'Vous n’avez pas les droits pour modifier ce paramètre', variant: 'error' });
      return;
    }
    save.mutate(
      { category: 'maintenance', settings: { maintenance_mode: next ? '1' : '0' } },
      {
        onSuccess: () =>
          notify({
            title: next ? 'Mode maintenance activé' : 'Mode maintenance désactivé',
            variant: 'success',
          }),
        onError: (error) =>
          notify({ title: 'Erreur lors de la sauvegarde', description: error.message, variant: 'error' }),
      },
    );
  };
  return (
    <div className="flex items-center gap-2 rounded-md border border-slate-200 px-2 py-1">
      <Label htmlFor="maintenance-switch" className="text-sm">
        Maintenance
      </Label>
      <Switch
        id="maintenance-switch"
        checked={on}
        disabled={save.isPending || maintenance.isPending}
        onCheckedChange={toggle}
      />
    </div>
  );
}
