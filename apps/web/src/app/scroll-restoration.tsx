import { useLayoutEffect } from 'react';
import { useLocation, useNavigationType } from 'react-router';

/**
 * A new page starts at its top, or at the element its #hash names; going back or forward is left
 * to the browser, which puts the page where it was.
 */
export function ScrollRestoration() {
  const { pathname, hash, key } = useLocation();
  const navigationType = useNavigationType();
  useLayoutEffect(() => {
    if (navigationType === 'POP') return;
    const target = hash ? document.getElementById(decodeURIComponent(hash.slice(1))) : null;
    if (target) target.scrollIntoView();
    else window.scrollTo(0, 0);
    // `key` changes on every navigation, a link to the page already shown included.
  }, [pathname, hash, key, navigationType]);
  return null;
}
