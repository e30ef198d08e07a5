import { Menu, ShieldCheck } from 'lucide-react';
import { Suspense, lazy, useRef, useState } from 'react';
import { Link, NavLink } from 'react-router';
import { Button } from '@/components/ui/button';
import { hasSession } from '@/lib/api-client';
import { useCustomerSession } from '@/lib/auth/customer-session';
import { useGeneralSettings } from '@/lib/site-settings';
import { NAV_LINKS, navClass } from './nav-links';

const loadMobileMenu = () => import('./mobile-menu');
const MobileMenu = lazy(loadMobileMenu);

export function SiteLogo() {
  const general = useGeneralSettings();
  const name = general.site_name || 'SecureRing';
  return (
    <Link to="/" className="flex items-center gap-2 font-bold text-slate-900">
      {general.logo ? (
        <img
          src={general.logo}
          alt=""
          height={32}
          decoding="async"
          className="h-8 w-auto max-w-32 object-contain"
        />
      ) : (
        <span className="flex size-8 items-center justify-center rounded-lg bg-primary text-white">
          <ShieldCheck className="size-5" aria-hidden />
        </span>
      )}
      <span className="text-lg">{name}</span>
    </Link>
  );
}

/**
 * The back-office link is for administrators: a signed-in customer (who is not also signed in as an
 * administrator in this browser) does not see it (issue 28). /admin itself stays reachable.
 */
function useShowsAdminLink(): boolean {
  const { customer } = useCustomerSession();
  return !customer || hasSession('admin');
}

export function SiteHeader() {
  const [open, setOpen] = useState(false);
  const showsAdminLink = useShowsAdminLink();
  // The drawer's code is fetched on first use, then stays mounted so closing it animates and
  // gives focus back to the button.
  const [menuUsed, setMenuUsed] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  return (
    // Opaque, without backdrop blur: a blurred sticky header is repainted on every scroll, which
    // phones without GPU compositing pay for on the main thread.
    <header className="sticky top-0 z-40 border-b border-slate-200 bg-white">
      <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-4 px-4">
        <SiteLogo />
        <nav aria-label="Navigation principale" className="hidden items-center gap-1 md:flex">
          {NAV_LINKS.map((link) => (
            <NavLink key={link.to} to={link.to} end={'end' in link} className={navClass}>
              {link.label}
            </NavLink>
          ))}
          {showsAdminLink ? (
            <NavLink to="/admin" className={navClass}>
              Admin
            </NavLink>
          ) : null}
          <Button asChild className="ml-2">
            <Link to="/ring">Accès Ring</Link>
          </Button>
        </nav>
        <Button
          ref={menuButton}
          variant="ghost"
          size="icon"
          className="md:hidden"
          aria-label="Ouvrir le menu"
          aria-haspopup="dialog"
          aria-expanded={open}
          onPointerDown={() => void loadMobileMenu().catch(() => undefined)}
          onClick={() => {
            setMenuUsed(true);
            setOpen(true);
          }}
        >
          <Menu className="size-6" />
        </Button>
        {menuUsed ? (
          <Suspense fallback={null}>
            <MobileMenu open={open} onOpenChange={setOpen} returnFocusTo={menuButton} />
          </Suspense>
        ) : null}
      </div>
    </header>
  );
}
