import { PageShell } from '@/components/layout/page-shell';

export const PaymentSuccessPage = () => <PageShell title="Paiement réussi" />;
export const PaymentCancelledPage = () => <PageShell title="Paiement annulé" />;
export const SubscriptionSuccessPage = () => <PageShell title="Abonnement activé" />;
