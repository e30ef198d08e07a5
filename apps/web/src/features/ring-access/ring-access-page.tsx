import { PageShell } from '@/components/layout/page-shell';

export const RingAccessPage = () => <PageShell title="Accès Ring" />;
