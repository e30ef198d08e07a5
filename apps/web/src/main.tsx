import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { AppProviders, queryClient } from './app/providers';
import { AppRoutes, preloadRoute } from './app/router';
import { installGlobalErrorLogging } from './lib/client-log';
import { seedPlansFromPage } from './lib/plans';
import { seedSettingsFromPage } from './lib/site-settings';
import './index.css';

installGlobalErrorLogging();
seedSettingsFromPage(queryClient);
seedPlansFromPage(queryClient);

// The page's chunk was preloaded by the server (modulepreload): render once it has run, so the
// first paint is the page itself, not a spinner. As a transition, the first render yields to the
// browser every few milliseconds instead of blocking a slow phone in one long task.
void preloadRoute(window.location.pathname).then(() => {
  const root = createRoot(document.getElementById('root')!);
  startTransition(() =>
    root.render(
      <StrictMode>
        <AppProviders>
          <BrowserRouter>
            <AppRoutes />
          </BrowserRouter>
        </AppProviders>
      </StrictMode>,
    ),
  );
});
