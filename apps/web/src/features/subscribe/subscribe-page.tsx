import { PageShell } from '@/components/layout/page-shell';

export const SubscribePage = () => <PageShell title="Abonnement" heading="Choisissez votre plan" />;
