import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { usePageTitle } from '@/lib/site-settings';

export function NotFoundPage() {
  usePageTitle('Page introuvable');
  return (
    <main className="mx-auto flex max-w-xl flex-col items-center gap-4 px-4 py-24 text-center">
      <p className="text-6xl font-bold text-primary">404</p>
      <h1 className="text-2xl font-bold">Page introuvable</h1>
      <p className="text-slate-600">La page que vous cherchez n’existe pas ou a été déplacée.</p>
      <Button asChild>
        <Link to="/">Retour à l’accueil</Link>
      </Button>
    </main>
  );
}
