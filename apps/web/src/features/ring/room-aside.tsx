import { Apple, Download, Info, KeyRound, Lock, ShieldCheck, Smartphone, Timer } from 'lucide-react';
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

const POINTS = [
  {
    icon: Lock,
    title: 'Chiffrement de bout en bout',
    text: 'Les messages et les fichiers sont chiffrés dans votre navigateur ; le serveur ne voit que des données illisibles.',
  },
  {
    icon: KeyRound,
    title: 'Une passphrase personnelle',
    text: 'La clé du Ring est dérivée de la passphrase que vous partagez avec votre équipe : elle ne nous est jamais transmise.',
  },
  {
    icon: Timer,
    title: 'Messages éphémères',
    text: 'Quand le Ring les active, les messages disparaissent après le délai choisi.',
  },
  {
    icon: ShieldCheck,
    title: 'Rien n’est stocké en clair',
    text: 'Ni vos messages, ni vos fichiers, ni votre passphrase ne sont conservés en clair sur nos serveurs.',
  },
] as const;

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
        <ul className="space-y-4">
          {POINTS.map(({ icon: Icon, title, text }) => (
            <li key={title} className="flex gap-3">
              <Icon className="mt-0.5 size-5 shrink-0 text-primary" aria-hidden />
              <div>
                <p className="font-medium">{title}</p>
                <p className="text-sm text-slate-600">{text}</p>
              </div>
            </li>
          ))}
        </ul>
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
