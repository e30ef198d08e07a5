import { PageShell } from '@/components/layout/page-shell';

export const ResetPasswordPage = () => <PageShell title="Nouveau mot de passe" />;
