import { PageShell } from '@/components/layout/page-shell';

export const TestCheckoutPage = () => <PageShell title="Paiement de test" />;
