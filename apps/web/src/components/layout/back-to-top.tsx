import { BACK_TO_TOP_THRESHOLD_PX } from '@securering/contract';
import { ArrowUp } from 'lucide-react';
import { useEffect, useState } from 'react';

/** Floating button shown after 300 px of scroll. */
export function BackToTop() {
  const [visible, setVisible] = useState(false);
  useEffect(() => {
    const onScroll = () => setVisible(window.scrollY > BACK_TO_TOP_THRESHOLD_PX);
    onScroll();
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, []);
  if (!visible) return null;
  return (
    <button
      type="button"
      onClick={() => window.scrollTo({ top: 0, behavior: 'smooth' })}
      style={{ bottom: 'calc(var(--cookie-banner-height, 0px) + 1.5rem)' }}
      className="fixed right-6 z-30 flex size-11 items-center justify-center rounded-full bg-primary text-white shadow-lg hover:brightness-110"
      aria-label="Retour en haut"
    >
      <ArrowUp className="size-5" />
    </button>
  );
}
