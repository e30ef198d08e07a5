import { PageShell } from '@/components/layout/page-shell';

export function ContactPage() {
  return <PageShell title="Contact" heading="Contactez-nous" />;
}
