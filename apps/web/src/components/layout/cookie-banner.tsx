import { CONSENT_DAYS, COOKIES } from '@securering/contract';
import { Cookie, X } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Switch } from '@/components/ui/switch';
import { getCookie, setCookie, setJsonCookie } from '@/lib/cookies';

export interface ConsentPreferences {
  necessary: true;
  functional: boolean;
  analytics: boolean;
  marketing: boolean;
}

type Choice = 'all' | 'essential' | 'custom';

function storeConsent(choice: Choice, preferences: ConsentPreferences): void {
  setCookie(COOKIES.consent, choice, CONSENT_DAYS);
  setJsonCookie(COOKIES.preferences, preferences, CONSENT_DAYS);
}

const ESSENTIAL: ConsentPreferences = {
  necessary: true,
  functional: false,
  analytics: false,
  marketing: false,
};
const ALL: ConsentPreferences = { necessary: true, functional: true, analytics: true, marketing: true };

const CATEGORIES = [
  { key: 'functional', label: 'Fonctionnels', description: 'Mémorisent vos préférences d’affichage.' },
  { key: 'analytics', label: 'Statistiques', description: 'Mesurent l’audience du site de façon agrégée.' },
  { key: 'marketing', label: 'Marketing', description: 'Personnalisent les contenus promotionnels.' },
] as const;

/** Shown while no consent is stored (365 days once given). Closing counts as "essential only". */
export function CookieBanner() {
  const [visible, setVisible] = useState(() => getCookie(COOKIES.consent) === null);
  const [customising, setCustomising] = useState(false);
  const [draft, setDraft] = useState<ConsentPreferences>(ESSENTIAL);
  const bannerRef = useRef<HTMLElement>(null);

  // Floating buttons (back-to-top) read this to stay above the banner.
  useEffect(() => {
    const banner = bannerRef.current;
    const root = document.documentElement;
    if (!banner) return;
    const observer = new ResizeObserver(() =>
      root.style.setProperty('--cookie-banner-height', `${banner.offsetHeight}px`),
    );
    observer.observe(banner);
    return () => {
      observer.disconnect();
      root.style.removeProperty('--cookie-banner-height');
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
            <Button onClick={() => decide('all', ALL)}>Accepter tout</Button>
            <Button variant="outline" onClick={() => decide('essential', ESSENTIAL)}>
              Essentiel uniquement
            </Button>
            <Button variant="ghost" onClick={() => setCustomising(true)}>
              Personnaliser
            </Button>
          </div>
          <button
            type="button"
            className="absolute right-3 top-3 text-slate-400 hover:text-slate-700"
            aria-label="Fermer"
            onClick={() => decide('essential', ESSENTIAL)}
          >
            <X className="size-5" />
          </button>
        </div>
      </section>
      <Dialog open={customising} onOpenChange={setCustomising}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Personnaliser les cookies</DialogTitle>
            <DialogDescription>Choisissez les catégories de cookies que vous acceptez.</DialogDescription>
          </DialogHeader>
          <ul className="divide-y divide-slate-100">
            <li className="flex items-center justify-between gap-4 py-3">
              <div>
                <p className="font-medium">Nécessaires</p>
                <p className="text-sm text-slate-500">
                  Indispensables : session, sécurité, préférences de consentement.
                </p>
              </div>
              <Switch checked disabled aria-label="Nécessaires (toujours actifs)" />
            </li>
            {CATEGORIES.map((category) => (
              <li key={category.key} className="flex items-center justify-between gap-4 py-3">
                <div>
                  <p className="font-medium">{category.label}</p>
                  <p className="text-sm text-slate-500">{category.description}</p>
                </div>
                <Switch
                  checked={draft[category.key]}
                  onCheckedChange={(checked) => setDraft((d) => ({ ...d, [category.key]: checked }))}
                  aria-label={category.label}
                />
              </li>
            ))}
          </ul>
          <DialogFooter>
            <Button variant="outline" onClick={() => setCustomising(false)}>
              Annuler
            </Button>
            <Button onClick={() => decide('custom', draft)}>Sauvegarder</Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </>
  );
}
