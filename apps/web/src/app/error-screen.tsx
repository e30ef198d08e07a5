import { AlertTriangle } from 'lucide-react';
import { useEffect } from 'react';
import { Button } from '@/components/ui/button';
import { logToServer } from '@/lib/client-log';

/** Fallback for render errors anywhere in the app: logged to the server, user asked to refresh. */
export function ErrorScreen({ error }: { error: unknown }) {
  useEffect(() => {
    logToServer('error', 'system', 'Erreur d’affichage', {
      url: window.location.pathname,
      error: error instanceof Error ? error.message : String(error),
    });
  }, [error]);
  return (
    <main className="flex min-h-screen flex-col items-center justify-center gap-4 p-8 text-center">
      <AlertTriangle className="size-12 text-amber-500" aria-hidden />
      <h1 className="text-2xl font-bold">Une erreur est survenue</h1>
      <p className="max-w-md text-slate-600">
        Veuillez rafraîchir la page. Si le problème persiste, contactez-nous.
      </p>
      <Button onClick={() => window.location.reload()}>Rafraîchir la page</Button>
    </main>
  );
}
