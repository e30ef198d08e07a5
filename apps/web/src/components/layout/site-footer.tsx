import { Link } from 'react-router';
import { useGeneralSettings } from '@/lib/site-settings';

const LINKS = [
  { to: '/contact', label: 'Contact' },
  { to: '/terms', label: 'CGU' },
  { to: '/privacy', label: 'Confidentialité' },
  { to: '/legal', label: 'Mentions légales' },
] as const;

export function SiteFooter() {
  const general = useGeneralSettings();
  const copyright = general.copyright ?? '';
  const footerText = general.footer_text ?? '';
  return (
    <footer className="border-t border-slate-200 bg-white">
      <div className="mx-auto flex max-w-6xl flex-col items-center gap-4 px-4 py-8 text-sm text-slate-600 md:flex-row md:justify-between">
        <nav aria-label="Liens légaux" className="flex flex-wrap justify-center gap-x-2">
          {LINKS.map((link) => (
            <Link
              key={link.to}
              to={link.to}
              className="inline-flex min-h-11 min-w-11 items-center justify-center px-2 hover:text-primary"
            >
              {link.label}
            </Link>
          ))}
        </nav>
        <div className="text-center md:text-right">
          {copyright ? <p>{copyright}</p> : null}
          {footerText && footerText !== copyright ? <p className="text-slate-500">{footerText}</p> : null}
        </div>
      </div>
    </footer>
  );
}
