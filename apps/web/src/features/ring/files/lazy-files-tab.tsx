import { Suspense, lazy } from 'react';
import { Spinner } from '@/components/ui/spinner';

// Its own chunk (tus, the download worker's client, the tab's screens): fetched when the tab opens.
const FilesTab = lazy(() => import('./files-tab'));

/** The "Fichiers du ring" tab, loaded on first display. */
export function LazyFilesTab() {
  return (
    <Suspense fallback={<Spinner label="Chargement des fichiers…" />}>
      <FilesTab />
    </Suspense>
  );
}
