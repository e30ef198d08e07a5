import { PageShell } from '@/components/layout/page-shell';

export const TermsPage = () => <PageShell title="Conditions générales d’utilisation" />;
export const PrivacyPage = () => <PageShell title="Politique de confidentialité" />;
export const LegalNoticePage = () => <PageShell title="Mentions légales" />;
