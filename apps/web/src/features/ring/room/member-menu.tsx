import { MoreHorizontal } from 'lucide-react';
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { cn } from '@/lib/utils';

/**
 * The « ⋯ » of a member's row (issue 28): one line per member, the actions (private message, calls,
 * verification, roles, one's own keys) in a menu opened below the row. Hand-made rather than Radix's
 * DropdownMenu: the room's first load is at its budget, and a menu inside the row stays within the
 * panel's own scroll area (a list of 50 members scrolls without clipping it).
 */
export function MemberMenu({
  username,
  open,
  onOpenChange,
  header,
  children,
}: {
  username: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Shown above the actions (the safety number). */
  header?: ReactNode;
  /** MemberMenuItem elements. */
  children: ReactNode;
}) {
  const trigger = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  const menuId = useId();

  useEffect(() => {
    if (!open) return;
    panel.current?.querySelector<HTMLElement>('[role="menuitem"]:not([disabled])')?.focus();
    const close = (event: MouseEvent) => {
      const target = event.target as Node;
      if (!panel.current?.contains(target) && !trigger.current?.contains(target)) onOpenChange(false);
    };
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, [open, onOpenChange]);

  const handleKeyDown = (event: React.KeyboardEvent<HTMLDivElement>) => {
    const items = [
      ...(panel.current?.querySelectorAll<HTMLElement>('[role="menuitem"]:not([disabled])') ?? []),
    ];
    const at = items.indexOf(document.activeElement as HTMLElement);
    if (event.key === 'Escape') {
      event.preventDefault();
      onOpenChange(false);
      trigger.current?.focus();
    } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      items[(at + step + items.length) % items.length]?.focus();
    } else if (event.key === 'Home' || event.key === 'End') {
      event.preventDefault();
      items[event.key === 'Home' ? 0 : items.length - 1]?.focus();
    } else if (event.key === 'Tab') {
      onOpenChange(false);
    }
  };

  return (
    <>
      <button
        ref={trigger}
        type="button"
        aria-label={`Actions pour ${username}`}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        data-testid="member-menu-button"
        className="flex size-9 shrink-0 items-center justify-center rounded-md text-slate-500 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-primary pointer-coarse:size-11"
        onClick={() => onOpenChange(!open)}
      >
        <MoreHorizontal className="size-5" aria-hidden />
      </button>
      {open ? (
        <div
          ref={panel}
          className="order-last ml-12 basis-full rounded-md border border-slate-200 bg-white p-1 text-sm shadow-sm"
          onKeyDown={handleKeyDown}
        >
          {header ? <div className="px-2 py-1.5 text-xs text-slate-500">{header}</div> : null}
          <div id={menuId} role="menu" aria-label={`Actions pour ${username}`}>
            {children}
          </div>
        </div>
      ) : null}
    </>
  );
}

/** One action of a member's menu; the menu closes before the action runs (popups open in the click). */
export function MemberMenuItem({
  icon,
  children,
  onSelect,
  disabled = false,
  onClose,
}: {
  icon?: ReactNode;
  children: ReactNode;
  onSelect: () => void;
  disabled?: boolean;
  onClose: () => void;
}) {
  return (
    <button
      type="button"
      role="menuitem"
      disabled={disabled}
      className={cn(
        'flex w-full items-center gap-2 rounded-sm px-2 py-1.5 text-left text-slate-800 outline-none hover:bg-slate-100 focus-visible:bg-slate-100 disabled:opacity-50 pointer-coarse:min-h-11 [&_svg]:size-4 [&_svg]:shrink-0',
      )}
      onClick={() => {
        onClose();
        onSelect();
      }}
    >
      {icon}
      <span className="min-w-0">{children}</span>
    </button>
  );
}
