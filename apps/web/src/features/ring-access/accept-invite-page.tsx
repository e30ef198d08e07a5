import { PageShell } from '@/components/layout/page-shell';

export const AcceptInvitePage = () => <PageShell title="Rejoindre un Ring" />;
