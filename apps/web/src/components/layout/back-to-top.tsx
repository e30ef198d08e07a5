import { BACK_TO_TOP_THRESHOLD_PX } from '@securering/contract';
import { ArrowUp } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { cn } from '@/lib/utils';
import { COOKIE_BANNER_RESIZE_EVENT } from './cookie-consent';

/** What a person may tap or type in: the button must never sit on one. */
const CONTROL =
  'input, textarea, select, button, a[href], label, [role="button"], [role="switch"], [role="checkbox"], [role="radio"], [role="tab"], [contenteditable="true"]';

/** True when something the person can use lies under (or right beside) the button's square. */
function coversControl(button: HTMLElement): boolean {
  const rect = button.getBoundingClientRect();
  const margin = 4;
  const xs = [rect.left - margin, rect.left + rect.width / 2, rect.right + margin];
  const ys = [rect.top - margin, rect.top + rect.height / 2, rect.bottom + margin];
  for (const x of xs)
    for (const y of ys)
      for (const element of document.elementsFromPoint(x, y)) {
        if (button.contains(element)) continue;
        if (element.closest(CONTROL)) return true;
      }
  return false;
}

/**
 * Floating button shown after 300 px of scroll (spec 1 §2). It steps aside while it would cover a
 * form field, a button or a link, and while a field has the focus (the phone keyboard is up).
 */
export function BackToTop() {
  const [scrolled, setScrolled] = useState(false);
  const [inTheWay, setInTheWay] = useState(false);
  const ref = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    let frame = 0;
    const check = () => {
      frame = 0;
      setScrolled(window.scrollY > BACK_TO_TOP_THRESHOLD_PX);
      const typing = document.activeElement?.matches('input, textarea, select, [contenteditable="true"]');
      setInTheWay(Boolean(typing) || (ref.current ? coversControl(ref.current) : false));
    };
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(check);
    };
    check();
    window.addEventListener('scroll', schedule, { passive: true });
    window.addEventListener('resize', schedule);
    window.addEventListener(COOKIE_BANNER_RESIZE_EVENT, schedule);
    document.addEventListener('focusin', schedule);
    document.addEventListener('focusout', schedule);
    return () => {
      if (frame) cancelAnimationFrame(frame);
      window.removeEventListener('scroll', schedule);
      window.removeEventListener('resize', schedule);
      window.removeEventListener(COOKIE_BANNER_RESIZE_EVENT, schedule);
      document.removeEventListener('focusin', schedule);
      document.removeEventListener('focusout', schedule);
    };
  }, []);

  const shown = scrolled && !inTheWay;
  return (
    <button
      ref={ref}
      type="button"
      onClick={() => window.scrollTo({ top: 0, behavior: 'smooth' })}
      style={{ bottom: 'calc(var(--cookie-banner-height, 0px) + 1.5rem)' }}
      className={cn(
        'fixed right-4 z-30 flex size-11 items-center justify-center rounded-full bg-primary text-white shadow-lg transition-opacity hover:brightness-110 sm:right-6',
        shown ? 'opacity-100' : 'pointer-events-none opacity-0',
      )}
      aria-label="Retour en haut"
      aria-hidden={!shown}
      tabIndex={shown ? 0 : -1}
    >
      <ArrowUp className="size-5" />
    </button>
  );
}
