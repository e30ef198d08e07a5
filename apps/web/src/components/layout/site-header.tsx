import { Menu, ShieldCheck } from 'lucide-react';
import { useState } from 'react';
import { Link, NavLink } from 'react-router';
import { Button } from '@/components/ui/button';
import { Dialog, DialogTrigger, SheetContent } from '@/components/ui/dialog';
import { useGeneralSettings } from '@/lib/site-settings';
import { cn } from '@/lib/utils';

const LINKS = [
  { to: '/', label: 'Accueil', end: true },
  { to: '/contact', label: 'Contact' },
  { to: '/client', label: 'Espace Client' },
] as const;

export function SiteLogo() {
  const general = useGeneralSettings();
  const name = general.site_name || 'SecureRing';
  return (
    <Link to="/" className="flex items-center gap-2 font-bold text-slate-900">
      {general.logo ? (
        <img src={general.logo} alt="" className="h-8 w-auto max-w-32 object-contain" />
      ) : (
        <span className="flex size-8 items-center justify-center rounded-lg bg-primary text-white">
          <ShieldCheck className="size-5" aria-hidden />
        </span>
      )}
      <span className="text-lg">{name}</span>
    </Link>
  );
}

const navClass = ({ isActive }: { isActive: boolean }) =>
  cn(
    'rounded-md px-3 py-2 text-sm font-medium hover:bg-slate-100',
    isActive ? 'text-primary' : 'text-slate-700',
  );

export function SiteHeader() {
  const [open, setOpen] = useState(false);
  return (
    <header className="sticky top-0 z-40 border-b border-slate-200 bg-white/95 backdrop-blur">
      <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-4 px-4">
        <SiteLogo />
        <nav aria-label="Navigation principale" className="hidden items-center gap-1 md:flex">
          {LINKS.map((link) => (
            <NavLink key={link.to} to={link.to} end={'end' in link} className={navClass}>
              {link.label}
            </NavLink>
          ))}
          <NavLink to="/admin" className={navClass}>
            Admin
          </NavLink>
          <Button asChild className="ml-2">
            <Link to="/ring">Accès Ring</Link>
          </Button>
        </nav>
        <Dialog open={open} onOpenChange={setOpen}>
          <DialogTrigger asChild>
            <Button variant="ghost" size="icon" className="md:hidden" aria-label="Ouvrir le menu">
              <Menu className="size-6" />
            </Button>
          </DialogTrigger>
          <SheetContent title="Menu">
            <nav aria-label="Navigation mobile" className="mt-8 flex flex-col gap-1">
              {LINKS.map((link) => (
                <NavLink
                  key={link.to}
                  to={link.to}
                  end={'end' in link}
                  className={navClass}
                  onClick={() => setOpen(false)}
                >
                  {link.label}
                </NavLink>
              ))}
              <Button asChild className="mt-4">
                <Link to="/ring" onClick={() => setOpen(false)}>
                  Accès Ring
                </Link>
              </Button>
            </nav>
          </SheetContent>
        </Dialog>
      </div>
    </header>
  );
}
