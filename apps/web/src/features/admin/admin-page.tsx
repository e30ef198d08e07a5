import { PageShell } from '@/components/layout/page-shell';

export const AdminPage = () => <PageShell title="Administration" heading="Connexion administrateur" />;
