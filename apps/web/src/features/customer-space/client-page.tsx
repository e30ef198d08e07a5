import { PageShell } from '@/components/layout/page-shell';

export const ClientPage = () => <PageShell title="Espace Client" heading="Connexion Client" />;
