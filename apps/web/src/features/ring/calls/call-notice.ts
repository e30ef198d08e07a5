/**
 * Calls in the private conversation's timeline (issue 29): « Appel manqué de … », « Appel vocal ·
 * 3 min ». The caller's room writes one entry when a call it placed ends, as an ordinary encrypted,
 * signed message of the private conversation, so the server sees one more ciphertext right after
 * a call it already knew about, and nothing of what the entry says. The entry is the text below:
 * a reserved prefix (a control character a person cannot type in the composer; the feed strips it
 * from typed text) and a small JSON body, read back by {@link parseCallNotice}.
 */

import { clean, parseAction, plainTextOf } from '../chat/message-actions';
import { attachmentSummary } from '../chat/attachment-prefix';

/** The first characters of a call entry's plaintext. */
export const CALL_NOTICE_PREFIX = '\u0001call\u0001';

/**
 * How a call placed by the entry's sender (always the caller) ended: not answered, declined,
 * answered but never connected, or a real conversation.
 */
export type CallOutcome = 'missed' | 'declined' | 'failed' | 'answered';

export interface CallNotice {
  v: 1;
  callId: string;
  video: boolean;
  outcome: CallOutcome;
  /** For an answered call: seconds from the connection to the end. */
  durationSec: number;
}

const OUTCOMES: readonly CallOutcome[] = ['missed', 'declined', 'failed', 'answered'];
/** A day: longer is not a call duration this app produced. */
const MAX_DURATION_SEC = 86_400;

/** The plaintext of a call entry. */
export function encodeCallNotice(notice: Omit<CallNotice, 'v'>): string {
  const body: CallNotice = {
    v: 1,
    callId: notice.callId,
    video: notice.video,
    outcome: notice.outcome,
    durationSec: Math.max(0, Math.min(MAX_DURATION_SEC, Math.round(notice.durationSec))),
  };
  return CALL_NOTICE_PREFIX + JSON.stringify(body);
}

/** The call entry a decrypted text holds, or null for an ordinary message (or a malformed entry). */
export function parseCallNotice(text: string): CallNotice | null {
  if (!text.startsWith(CALL_NOTICE_PREFIX) || text.length > 400) return null;
  let body: unknown;
  try {
    body = JSON.parse(text.slice(CALL_NOTICE_PREFIX.length));
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null) return null;
  const b = body as Record<string, unknown>;
  if (
    b.v !== 1 ||
    typeof b.callId !== 'string' ||
    b.callId.length > 100 ||
    typeof b.video !== 'boolean' ||
    !OUTCOMES.includes(b.outcome as CallOutcome) ||
    typeof b.durationSec !== 'number' ||
    !Number.isInteger(b.durationSec) ||
    b.durationSec < 0 ||
    b.durationSec > MAX_DURATION_SEC
  )
    return null;
  return {
    v: 1,
    callId: b.callId,
    video: b.video,
    outcome: b.outcome as CallOutcome,
    durationSec: b.durationSec,
  };
}

/**
 * Typed text never passes for a call entry nor a message action (issue 29): its reserved leading
 * control characters are dropped.
 */
export function neutralizeTypedText(text: string): string {
  return clean(text);
}

/** « 42 s », « 3 min », « 1 h 05 » — a call's length in the timeline. */
export function formatCallLength(seconds: number): string {
  const total = Math.max(0, Math.round(seconds));
  if (total < 60) return `${total}\u202fs`;
  const minutes = Math.round(total / 60);
  if (minutes < 60) return `${minutes}\u202fmin`;
  const hours = Math.floor(minutes / 60);
  return `${hours}\u202fh\u202f${String(minutes % 60).padStart(2, '0')}`;
}

/**
 * The line the timeline shows for a call entry. The sender is the caller: the callee reads
 * « Appel manqué de {caller} », the caller « Appel vocal sans réponse »; an answered call reads
 * « Appel vocal · 3 min » on both sides.
 */
export function callNoticeText(notice: CallNotice, ctx: { own: boolean; senderName: string }): string {
  const kind = notice.video ? 'Appel vidéo' : 'Appel vocal';
  switch (notice.outcome) {
    case 'answered':
      return `${kind} · ${formatCallLength(notice.durationSec)}`;
    case 'missed':
      return ctx.own ? `${kind} sans réponse` : `Appel manqué de ${ctx.senderName}`;
    case 'declined':
      return ctx.own ? `${kind} refusé` : `${kind} de ${ctx.senderName} refusé`;
    case 'failed':
      return `${kind} non abouti`;
  }
}

/**
 * What a notice or preview shows for a decrypted text: the call line, a message action's text
 * (message-actions.ts; a reaction shows as « Réaction … »), or the text itself.
 */
export function displayTextOf(text: string, ctx: { own: boolean; senderName: string }): string {
  const notice = parseCallNotice(text);
  if (notice) return callNoticeText(notice, ctx);
  const attachment = attachmentSummary(text);
  if (attachment) return attachment;
  const action = parseAction(text);
  if (action?.kind === 'react') return `Réaction ${action.emoji}`;
  return plainTextOf(text) ?? text;
}

/** How a call the caller's room followed ended (pure; `call-timeline.ts` drives it). */
export function outcomeOf(
  ending: 'cancelled' | 'timeout' | 'rejected' | 'hangup' | 'peer_lost',
  seen: { answered: boolean; connected: boolean },
): CallOutcome {
  if (seen.connected) return 'answered';
  if (seen.answered) return 'failed';
  return ending === 'rejected' ? 'declined' : 'missed';
}
