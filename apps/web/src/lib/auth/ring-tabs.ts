import { RING_LAST_TAB_REASON } from '@securering/contract';
import { useEffect } from 'react';
import { sessionHeaders } from '../api-client';

/** This browser's open Ring tabs and popups: id → last heartbeat (ms). */
const STORAGE_KEY = 'secureRing.ringTabs';
const HEARTBEAT_MS = 20_000;
/**
 * A tab that has not beaten for this long is gone (crashed, killed): hidden tabs' timers run at
 * most once a minute, so the margin is wide.
 */
export const RING_TAB_STALE_MS = 180_000;

export type RingTabs = Record<string, number>;

/** The tabs other than `self` that still beat at `now`. */
export function otherLiveTabs(tabs: RingTabs, self: string, now: number): string[] {
  return Object.entries(tabs)
    .filter(([id, beat]) => id !== self && typeof beat === 'number' && now - beat < RING_TAB_STALE_MS)
    .map(([id]) => id);
}

function readTabs(): RingTabs {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as RingTabs) : {};
  } catch {
    return {};
  }
}

/** Writes `self`'s entry (or removes it) and drops stale ones; returns the other live tabs. */
function updateTabs(self: string, present: boolean): string[] {
  const now = Date.now();
  const stored = readTabs();
  const others = otherLiveTabs(stored, self, now);
  const tabs: RingTabs = Object.fromEntries(others.map((id) => [id, stored[id]!]));
  if (present) tabs[self] = now;
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(tabs));
  } catch {
    // Storage disabled: every tab then counts as the last one (the server's grace keeps reloads).
  }
  return others;
}

/**
 * Counts this page as one of the browser's open Ring tabs (the room and its DM and call popups)
 * while a Ring session exists. When the last of them goes (`pagehide`), it tells the server, which
 * ends the session after a short grace unless the same session is used again first — so a reload
 * keeps it (spec 2 §7: logout "also sent when the page closes"). Authenticated like the logout
 * button: the HttpOnly session cookie, which a keepalive fetch carries, and the CSRF header (which a
 * beacon could not send). `sessionKey` names the session (Ring and member), null without one.
 */
export function useRingTabPresence(sessionKey: string | null): void {
  useEffect(() => {
    if (!sessionKey) return;
    const self = crypto.randomUUID();
    updateTabs(self, true);
    const timer = window.setInterval(() => updateTabs(self, true), HEARTBEAT_MS);
    const handlePageHide = () => {
      if (updateTabs(self, false).length > 0) return;
      void fetch('/api/rings/logout.php', {
        method: 'POST',
        keepalive: true,
        headers: { ...sessionHeaders('ring'), 'Content-Type': 'application/json' },
        body: JSON.stringify({ reason: RING_LAST_TAB_REASON }),
      }).catch(() => undefined);
    };
    // Back from the back-forward cache: open again.
    const handlePageShow = (event: PageTransitionEvent) => {
      if (event.persisted) updateTabs(self, true);
    };
    window.addEventListener('pagehide', handlePageHide);
    window.addEventListener('pageshow', handlePageShow);
    return () => {
      // Leaving the Ring inside the app (logout, another page) is not closing a tab.
      window.clearInterval(timer);
      window.removeEventListener('pagehide', handlePageHide);
      window.removeEventListener('pageshow', handlePageShow);
      updateTabs(self, false);
    };
  }, [sessionKey]);
}
