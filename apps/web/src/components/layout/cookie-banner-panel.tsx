import { CONSENT_DAYS, COOKIES } from '@securering/contract';
import { Cookie, X } from 'lucide-react';
import { Suspense, lazy, useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { setCookie, setJsonCookie } from '@/lib/cookies';
import {
  ALL_CONSENT,
  COOKIE_BANNER_RESIZE_EVENT,
  ESSENTIAL_CONSENT,
  type ConsentPreferences,
} from './cookie-consent';

type Choice = 'all' | 'essential' | 'custom';

function storeConsent(choice: Choice, preferences: ConsentPreferences): void {
  setCookie(COOKIES.consent, choice, CONSENT_DAYS);
  setJsonCookie(COOKIES.preferences, preferences, CONSENT_DAYS);
}

const loadPreferencesDialog = () => import('./cookie-preferences-dialog');
const CookiePreferencesDialog = lazy(loadPreferencesDialog);

/**
 * The banner itself, loaded by `CookieBanner` only while no consent is stored (365 days once
 * given). Closing counts as "essential only".
 */
export function CookieBannerPanel() {
  const [visible, setVisible] = useState(true);
  const [customising, setCustomising] = useState(false);
  // The preferences dialog is fetched when first asked for, then kept (with its choices).
  const [customised, setCustomised] = useState(false);
  const bannerRef = useRef<HTMLElement>(null);

  // Floating buttons (back-to-top) read this to stay above the banner.
  useEffect(() => {
    const banner = bannerRef.current;
    const root = document.documentElement;
    if (!banner) return;
    const observer = new ResizeObserver(() => {
      root.style.setProperty('--cookie-banner-height', `${banner.offsetHeight}px`);
      window.dispatchEvent(new Event(COOKIE_BANNER_RESIZE_EVENT));
    });
    observer.observe(banner);
    return () => {
      observer.disconnect();
      root.style.removeProperty('--cookie-banner-height');
      window.dispatchEvent(new Event(COOKIE_BANNER_RESIZE_EVENT));
    };
  }, [visible]);

  if (!visible) return null;
  const decide = (choice: Choice, preferences: ConsentPreferences) => {
    storeConsent(choice, preferences);
    setVisible(false);
    setCustomising(false);
  };

  return (
    <>
      <section
        ref={bannerRef}
        aria-label="Consentement aux cookies"
        className="fixed inset-x-0 bottom-0 z-50 border-t border-slate-200 bg-white p-4 shadow-[0_-4px_20px_rgba(0,0,0,0.08)]"
      >
        <div className="mx-auto flex max-w-6xl flex-col gap-4 md:flex-row md:items-center">
          <Cookie className="hidden size-8 shrink-0 text-primary md:block" aria-hidden />
          <p className="flex-1 pr-8 text-sm text-slate-700">
            Nous utilisons des cookies essentiels au fonctionnement du site et, avec votre accord, des cookies
            fonctionnels, statistiques et marketing. En savoir plus dans notre{' '}
            <Link to="/privacy" className="text-primary underline">
              politique de confidentialité
            </Link>
            .
          </p>
          <div className="flex flex-wrap gap-2">
            <Button onClick={() => decide('all', ALL_CONSENT)}>Accepter tout</Button>
            <Button variant="outline" onClick={() => decide('essential', ESSENTIAL_CONSENT)}>
              Essentiel uniquement
            </Button>
            <Button
              variant="ghost"
              onPointerDown={() => void loadPreferencesDialog().catch(() => undefined)}
              onClick={() => {
                setCustomised(true);
                setCustomising(true);
              }}
            >
              Personnaliser
            </Button>
          </div>
          <button
            type="button"
            className="absolute right-1 top-1 inline-flex size-11 items-center justify-center rounded-md text-slate-400 hover:text-slate-700"
            aria-label="Fermer"
            onClick={() => decide('essential', ESSENTIAL_CONSENT)}
          >
            <X className="size-5" />
          </button>
        </div>
      </section>
      {customised ? (
        <Suspense fallback={null}>
          <CookiePreferencesDialog
            open={customising}
            onOpenChange={setCustomising}
            onSave={(preferences) => decide('custom', preferences)}
          />
        </Suspense>
      ) : null}
    </>
  );
}
