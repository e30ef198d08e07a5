import { use, useSyncExternalStore, type ComponentType } from 'react';

/** A page whose code is a separate chunk, fetched when its route is first shown. */
export interface LazyPage {
  (): React.JSX.Element;
  /** Fetches the chunk (once); the page then renders without suspending. */
  preload(): Promise<void>;
}

/**
 * Page chunks being downloaded for a render. Navigations run as transitions (BrowserRouter), so
 * React keeps the previous page on screen meanwhile: `RouteLoadingBar` reads this to show that
 * the next one is on its way. Listeners are told after the render, never during it.
 */
const downloading = new Set<Promise<void>>();
const listeners = new Set<() => void>();
const notify = () => queueMicrotask(() => listeners.forEach((listener) => listener()));

function track(download: Promise<void>): void {
  if (downloading.has(download)) return;
  downloading.add(download);
  notify();
  const done = () => {
    downloading.delete(download);
    notify();
  };
  download.then(done, done);
}

/** True while a page's code is downloading for the route being shown. */
export function useRouteCodeLoading(): boolean {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => downloading.size > 0,
    () => false,
  );
}

/** A download React's use() can read synchronously once it has settled. */
type TaggedDownload = Promise<void> & { status?: 'fulfilled'; value?: undefined };

/**
 * Like React.lazy, with `preload()`: main.tsx loads the current route's page before the first
 * render, so the page appears at once instead of behind a spinner that React would keep on
 * screen for its minimum reveal delay. A failed download is retried on the next attempt. Until
 * the first render, index.html shows a loading shell; afterwards the Suspense fallbacks of the
 * layouts and the loading bar (`useRouteCodeLoading`) say that a page is on its way.
 */
export function lazyPage<M>(load: () => Promise<M>, pick: (module: M) => ComponentType): LazyPage {
  let Component: ComponentType | undefined;
  let pending: TaggedDownload | undefined;
  const preload = (): Promise<void> => {
    if (pending) return pending;
    const download: TaggedDownload = load().then(
      (module) => {
        Component = pick(module);
        // Read by React's use(): a settled download is used without suspending again.
        download.status = 'fulfilled';
        download.value = undefined;
      },
      (error: unknown) => {
        pending = undefined;
        throw error;
      },
    );
    pending = download;
    return download;
  };
  function Page() {
    const download = preload();
    if (!Component) track(download);
    // Called on every render, loaded or not: React requires a component that suspended on use()
    // to call it again once the promise settles; the tagged promise then returns at once.
    use(download);
    const Loaded = Component!;
    return <Loaded />;
  }
  return Object.assign(Page, { preload });
}
