import { PageShell } from '@/components/layout/page-shell';

export function HomePage() {
  return <PageShell title="Accueil" heading="SecureRing" />;
}
