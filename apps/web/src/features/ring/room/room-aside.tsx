import { Apple, Download, Info, Smartphone } from 'lucide-react';
import { lazy, Suspense } from 'react';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from '@/components/ui/dialog';
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

// The explanations load when the dialog first opens: most visits never open it.
const SecurityPoints = lazy(() => import('./security-points').then((m) => ({ default: m.SecurityPoints })));

/** "À propos de la sécurité". */
export function SecurityDialog() {
  return (
    <Dialog>
      <DialogTrigger asChild>
        <Button variant="ghost" size="sm">
          <Info aria-hidden /> À propos de la sécurité
        </Button>
      </DialogTrigger>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>À propos de la sécurité</DialogTitle>
          <DialogDescription>Comment votre Ring protège vos échanges.</DialogDescription>
        </DialogHeader>
        <Suspense fallback={<p className="text-sm text-slate-500">Chargement…</p>}>
          <SecurityPoints />
        </Suspense>
      </DialogContent>
    </Dialog>
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
