import { PageShell } from '@/components/layout/page-shell';

export const ForgotPasswordPage = () => <PageShell title="Mot de passe oublié" />;
