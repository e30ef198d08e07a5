import type { RefObject } from 'react';
import { Link, NavLink } from 'react-router';
import { Button } from '@/components/ui/button';
import { Dialog, SheetContent } from '@/components/ui/dialog';
import { NAV_LINKS, navClass } from './nav-links';

/**
 * The navigation drawer of small screens (Radix Dialog: focus trapped, Escape closes). Loaded on
 * first use; focus goes back to the button that opened it.
 */
export default function MobileMenu({
  open,
  onOpenChange,
  returnFocusTo,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  returnFocusTo: RefObject<HTMLButtonElement | null>;
}) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <SheetContent
        title="Menu"
        onCloseAutoFocus={(event) => {
          event.preventDefault();
          returnFocusTo.current?.focus();
        }}
      >
        <nav aria-label="Navigation mobile" className="mt-8 flex flex-col gap-1">
          {NAV_LINKS.map((link) => (
            <NavLink
              key={link.to}
              to={link.to}
              end={'end' in link}
              className={navClass}
              onClick={() => onOpenChange(false)}
            >
              {link.label}
            </NavLink>
          ))}
          <Button asChild className="mt-4">
            <Link to="/ring" onClick={() => onOpenChange(false)}>
              Accès Ring
            </Link>
          </Button>
        </nav>
      </SheetContent>
    </Dialog>
  );
}
