import { EPHEMERAL_MAX_LIFETIME_SEC } from '@securering/contract';

/**
 * This browser's own record of when each ephemeral message it displayed leaves the screen (first
 * display plus the signed delay), by message id, per member, in localStorage (shared by the room and
 * its popups; times only, never content). A reload keeps counting down instead of starting again,
 * and the browser trusts this record before the server's. Records are dropped once the server must
 * have deleted the message.
 */
const storageKey = (memberId: string) => `securering.ephemeral-seen.${memberId}`;
const KEEP_MS = EPHEMERAL_MAX_LIFETIME_SEC * 1000;

function load(memberId: string): Record<string, number> {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(storageKey(memberId)) ?? '{}');
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, number>) : {};
  } catch {
    return {};
  }
}

/** The recorded end of this member's countdown of a message, if it displayed it already. */
export function seenDeadline(memberId: string, messageId: string): number | undefined {
  const value = load(memberId)[messageId];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Records the end of this member's countdown of a message (the first record stays). */
export function recordSeen(memberId: string, messageId: string, deadline: number, nowMs: number): number {
  const all = load(memberId);
  const existing = all[messageId];
  if (typeof existing === 'number' && Number.isFinite(existing)) return existing;
  all[messageId] = deadline;
  for (const [id, end] of Object.entries(all)) if (!(end > nowMs - KEEP_MS)) delete all[id];
  try {
    localStorage.setItem(storageKey(memberId), JSON.stringify(all));
  } catch {
    // Storage full or refused: the countdown runs for this page only.
  }
  return deadline;
}
