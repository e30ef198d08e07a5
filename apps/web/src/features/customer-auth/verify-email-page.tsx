import { PageShell } from '@/components/layout/page-shell';

export const VerifyEmailPage = () => <PageShell title="Vérification de l’email" />;
