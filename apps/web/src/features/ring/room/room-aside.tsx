import { Apple, Download, Info, Smartphone } from 'lucide-react';
import { lazy } from 'react';
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card';
import { LazyDialogButton } from '@/components/ui/lazy-dialog-button';
import { useGeneralSettings } from '@/lib/site-settings';

/** "Téléchargements": the app links from settings, or "À venir" when none is set. */
export function DownloadsCard() {
  const general = useGeneralSettings();
  const links = [
    { label: 'iOS', url: general.ios_app_url, icon: Apple },
    { label: 'Android', url: general.android_app_url, icon: Smartphone },
    { label: 'APK direct', url: general.apk_direct_url, icon: Download },
  ].filter((link) => Boolean(link.url));
  return (
    <Card>
      <CardHeader>
        <CardTitle>Téléchargements</CardTitle>
      </CardHeader>
      <CardContent>
        {links.length === 0 ? (
          <p className="text-sm text-slate-500">À venir</p>
        ) : (
          <ul className="space-y-2">
            {links.map(({ label, url, icon: Icon }) => (
              <li key={label}>
                <a
                  href={url}
                  target="_blank"
                  rel="noopener noreferrer"
                  className="flex items-center gap-2 text-sm text-primary hover:underline"
                >
                  <Icon className="size-4" aria-hidden /> {label}
                </a>
              </li>
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}

// The dialog and its explanations load when first opened: most visits never open it.
const SecurityDialog = lazy(() => import('./security-dialog').then((m) => ({ default: m.SecurityDialog })));

/** "À propos de la sécurité": the button, and the dialog once clicked. */
export function SecurityDialogButton() {
  return (
    <LazyDialogButton variant="ghost" size="sm" dialog={SecurityDialog} dialogProps={{}}>
      <Info aria-hidden /> À propos de la sécurité
    </LazyDialogButton>
  );
}

/** Copyright and, if different, the footer text from settings. */
export function RingFooter() {
  const general = useGeneralSettings();
  const copyright = general.copyright ?? '';
  const footer = general.footer_text ?? '';
  return (
    <footer className="border-t border-slate-200 bg-white py-4 text-center text-xs text-slate-500">
      {copyright ? <p>{copyright}</p> : null}
      {footer && footer !== copyright ? <p>{footer}</p> : null}
    </footer>
  );
}
