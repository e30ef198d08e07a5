import { PageShell } from '@/components/layout/page-shell';

export const RegisterPage = () => <PageShell title="Inscription" heading="Créer votre compte" />;
