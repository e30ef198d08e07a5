import { PageShell } from '@/components/layout/page-shell';
import { Alert } from '@/components/ui/alert';
import { FullPageSpinner } from '@/components/ui/spinner';
import { sanitizeHtml } from '@/lib/sanitize';
import { useSettings } from '@/lib/site-settings';

type LegalKey = 'terms_content' | 'privacy_content' | 'legal_content';

/** Renders admin-supplied HTML (sanitised again here), or says the page is not configured yet. */
function LegalPage({ title, settingKey }: { title: string; settingKey: LegalKey }) {
  const legal = useSettings('legal');
  const html = legal.data?.[settingKey]?.trim() ?? '';
  return (
    <PageShell title={title} width="lg">
      {legal.isPending ? (
        <FullPageSpinner />
      ) : legal.isError ? (
        <Alert variant="error">Impossible de charger cette page. Veuillez réessayer.</Alert>
      ) : html ? (
        <article
          className="rich-content rounded-xl border border-slate-200 bg-white p-6 md:p-10"
          dangerouslySetInnerHTML={{ __html: sanitizeHtml(html) }}
        />
      ) : (
        <Alert variant="info" title="Page non configurée">
          Le contenu de cette page n’a pas encore été configuré par l’administrateur.
        </Alert>
      )}
    </PageShell>
  );
}

export const TermsPage = () => (
  <LegalPage title="Conditions générales d’utilisation" settingKey="terms_content" />
);
export const PrivacyPage = () => (
  <LegalPage title="Politique de confidentialité" settingKey="privacy_content" />
);
export const LegalNoticePage = () => <LegalPage title="Mentions légales" settingKey="legal_content" />;
