import { PageShell } from '@/components/layout/page-shell';

export const RingPage = () => <PageShell title="Accès Ring" heading="Connexion au Ring" />;
