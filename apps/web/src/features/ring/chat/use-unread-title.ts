import { useEffect } from 'react';
import { unreadTitle } from './reading-marks';

/**
 * « (3) Cellule — SecureRing »: the member's unread count before the page's title (issue 29). The
 * page title is set by others (usePageTitle, after this effect on the first render): a watch on
 * <title> puts the count back whenever it is written over.
 */
export function useUnreadTitle(unread: number): void {
  useEffect(() => {
    const apply = () => {
      const next = unreadTitle(document.title, unread);
      if (next !== document.title) document.title = next;
    };
    apply();
    const observer = new MutationObserver(apply);
    observer.observe(document.head, { childList: true, subtree: true, characterData: true });
    return () => {
      observer.disconnect();
      document.title = unreadTitle(document.title, 0);
    };
  }, [unread]);
}
