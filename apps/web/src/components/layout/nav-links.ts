import { cn } from '@/lib/utils';

/** The public site's main links, in the header and in the mobile menu. */
export const NAV_LINKS = [
  { to: '/', label: 'Accueil', end: true },
  { to: '/contact', label: 'Contact' },
  { to: '/client', label: 'Espace Client' },
] as const;

export const navClass = ({ isActive }: { isActive: boolean }) =>
  cn(
    'rounded-md px-3 py-2 text-sm font-medium hover:bg-slate-100',
    isActive ? 'text-primary' : 'text-slate-700',
  );
