import {
  type MessageSound,
  type TE2eeErrorCode,
  type TMessage,
  type TNewMessageEvent,
  type TNotificationSettings,
} from '@securering/contract';
import { isSameDay } from 'date-fns';
import { attachmentSummary } from './attachment-prefix';

/**
 * The chat's rules as pure functions (spec 2 §2 Chat screen, §4, §5, §9; issue 11): how messages
 * merge, in which order they show, when a send is retried, how polling backs off, when a notice is
 * raised. conversation-feed.ts and the components do the I/O around them.
 */

// ---- Messages ------------------------------------------------------------------------------------

/** Where a message of this browser stands: being sent, retried, refused, or stored by the server. */
export type SendStatus = 'sending' | 'retrying' | 'failed' | 'sent';

/** One message as the chat holds it: stored (with id and seq) or still being sent by this tab. */
export interface ChatEntry {
  /** `${senderId}:${clientMessageId}`: the same message whether pending, acknowledged or pushed. */
  key: string;
  id: string | null;
  seq: number | null;
  conversationId: string;
  clientMessageId: string;
  senderId: string;
  senderName: string;
  timestamp: string;
  isOwn: boolean;
  isEphemeral: boolean;
  /** When the server will delete it at the latest (its claim). */
  expiresAt: string | null;
  /**
   * Ephemeral, the server's record (a claim): for an own message, another member's first display;
   * for another's, this member's first display on any device. Null: not yet.
   */
  readAt: string | null;
  epoch: number;
  /** The encrypted envelope (null while a pending message is being encrypted). */
  content: string | null;
  status: SendStatus;
  /** French reason of a failed send. */
  error?: string;
  /** Order of pending messages among themselves (they follow every stored message). */
  localOrder: number;
}

export const entryKey = (senderId: string, clientMessageId: string) => `${senderId}:${clientMessageId}`;

/** A message from get.php or send.php. */
export function entryFromMessage(message: TMessage): ChatEntry {
  return {
    key: entryKey(message.sender.id, message.clientMessageId),
    id: message.id,
    seq: message.seq,
    conversationId: message.conversationId,
    clientMessageId: message.clientMessageId,
    senderId: message.sender.id,
    senderName: message.sender.username,
    timestamp: message.timestamp,
    isOwn: message.isOwn,
    isEphemeral: message.isEphemeral,
    expiresAt: message.expiresAt,
    readAt: message.readAt,
    epoch: message.epoch,
    content: message.content,
    status: 'sent',
    localOrder: 0,
  };
}

/** A message pushed by the socket (`new_message`). */
export function entryFromEvent(event: TNewMessageEvent, selfId: string): ChatEntry {
  return {
    key: entryKey(event.fromUserId, event.clientMessageId),
    id: event.messageId,
    seq: event.seq,
    conversationId: event.conversationId,
    clientMessageId: event.clientMessageId,
    senderId: event.fromUserId,
    senderName: event.fromUsername,
    timestamp: event.timestamp,
    isOwn: event.fromUserId === selfId,
    isEphemeral: event.isEphemeral,
    expiresAt: event.expiresAt,
    readAt: null,
    epoch: event.epoch,
    content: event.content,
    status: 'sent',
    localOrder: 0,
  };
}

function compareEntries(a: ChatEntry, b: ChatEntry): number {
  if (a.seq !== null && b.seq !== null) return a.seq - b.seq;
  if (a.seq !== null) return -1;
  if (b.seq !== null) return 1;
  return a.localOrder - b.localOrder;
}

/**
 * Merges messages into the list so each shows exactly once, in sequence order: a message already
 * there (same id, or same sender and client message id — a retried or pushed copy of a pending
 * one) is not added again; a stored copy replaces its pending bubble. Pending messages follow the
 * stored ones in the order they were written.
 */
export function mergeEntries(current: readonly ChatEntry[], incoming: readonly ChatEntry[]): ChatEntry[] {
  const byKey = new Map(current.map((entry) => [entry.key, entry]));
  const ids = new Set(current.flatMap((entry) => (entry.id ? [entry.id] : [])));
  let changed = false;
  for (const entry of incoming) {
    if (entry.id && ids.has(entry.id)) continue;
    const existing = byKey.get(entry.key);
    if (existing && existing.id !== null) continue;
    if (existing && entry.id === null) {
      // An update of a pending message (status, envelope).
      byKey.set(entry.key, { ...existing, ...entry });
    } else {
      byKey.set(entry.key, existing ? { ...entry, localOrder: existing.localOrder } : entry);
      if (entry.id) ids.add(entry.id);
    }
    changed = true;
  }
  if (!changed) return current as ChatEntry[];
  return [...byKey.values()].sort(compareEntries);
}

/** The highest sequence number seen (what `get.php?since=` asks after); it never goes back. */
export function highestSeq(entries: readonly ChatEntry[], previous = 0): number {
  return entries.reduce((max, entry) => (entry.seq !== null && entry.seq > max ? entry.seq : max), previous);
}

/** A pushed message skips numbers: some were missed (a reconnection), catch up from the database. */
export function hasGap(highest: number, incomingSeq: number): boolean {
  return incomingSeq > highest + 1;
}

/**
 * Ephemeral messages whose time has come, and the rest: the reader's own countdown ran out
 * (`hideAt`, by entry key), or the server's deletion time passed.
 */
export function splitExpired(
  entries: readonly ChatEntry[],
  nowMs: number,
  hideAt: ReadonlyMap<string, number> = new Map(),
): { kept: ChatEntry[]; expired: ChatEntry[] } {
  const kept: ChatEntry[] = [];
  const expired: ChatEntry[] = [];
  for (const entry of entries) {
    if (isExpired(entry, nowMs, hideAt.get(entry.key))) expired.push(entry);
    else kept.push(entry);
  }
  return { kept, expired };
}

export function isExpired(entry: Pick<ChatEntry, 'expiresAt'>, nowMs: number, hideAt?: number): boolean {
  return (
    (hideAt !== undefined && hideAt <= nowMs) ||
    (entry.expiresAt !== null && Date.parse(entry.expiresAt) <= nowMs)
  );
}

/**
 * What the envelope's (not yet verified) header says of a message's lifetime (issue 27 M4). A v2
 * envelope signs it, so the server's `isEphemeral` / `expiresAt` are replaced by it: a permanent
 * message has no expiry the server could claim, an ephemeral one follows its signed countdown. A
 * header the server forged does not verify, so such a message shows as « non vérifiable », never
 * as someone's text. A legacy (v1) message keeps the server's claims.
 */
export function withSignedClaims<T extends Pick<ChatEntry, 'isEphemeral' | 'expiresAt'>>(
  entry: T,
  header: { v: 1 | 2; ephemeralSec?: number } | undefined,
): T {
  if (header?.v !== 2) return entry;
  const isEphemeral = header.ephemeralSec !== undefined;
  if (entry.expiresAt === null && entry.isEphemeral === isEphemeral) return entry;
  return { ...entry, isEphemeral, expiresAt: null };
}

/**
 * Whether the server's `messages_deleted` may take a message off this reader's screen: not a
 * message its sender signed permanent (v2) — the server cannot expire it; if it deleted it, readers
 * who load the conversation later see « Message manquant » where it was.
 */
export function serverMayRemove(header: { v: 1 | 2; ephemeralSec?: number } | undefined): boolean {
  return !(header?.v === 2 && header.ephemeralSec === undefined);
}

/**
 * The time a message shows: the send time its sender signed once verified, else the server's
 * (a claim, only until the message is verified or when it cannot be).
 */
export function messageTime(
  serverTimestamp: string,
  signedSentAt: string | undefined,
): {
  iso: string;
  signed: boolean;
} {
  return signedSentAt !== undefined
    ? { iso: signedSentAt, signed: true }
    : { iso: serverTimestamp, signed: false };
}

/** The system line where a sender's sequence breaks (issue 27 M4). */
export const MISSING_MESSAGE = 'Message manquant';

/** Why « Message manquant » shows, for its tooltip. */
export function missingMessageReason(kind: 'gap' | 'fork', senderName: string): string {
  return kind === 'gap'
    ? `Un message de ${senderName} n’a pas été remis par le serveur.`
    : `La suite des messages de ${senderName} ne correspond pas à ce qu’il a signé.`;
}

/**
 * When a reader's first display of another's ephemeral message started its countdown, as this
 * browser decides it the first time it displays it: the server's record of an earlier display on
 * another device (a claim, kept between the signed send time and now), else now.
 */
export function displayStart(serverReadAt: string | null, signedSentAt: string, nowMs: number): number {
  const claimed = serverReadAt === null ? NaN : Date.parse(serverReadAt);
  if (Number.isNaN(claimed)) return nowMs;
  return Math.min(nowMs, Math.max(Date.parse(signedSentAt), claimed));
}

/**
 * When this reader's copy of an ephemeral message leaves the screen (issue 25), or undefined while
 * it has no countdown. `signedSec`: the delay its sender signed (undefined: not ephemeral by its
 * signature). Another's message: this browser's own record (`localDeadline`: first display plus
 * the signed delay). An own message: the first reading by anyone (the server's record, not before
 * the signed send time) plus the delay. A message from before signed delays keeps the server's
 * expiry.
 */
export function ephemeralHideAt(
  entry: Pick<ChatEntry, 'isOwn' | 'isEphemeral' | 'expiresAt' | 'readAt'>,
  signed: { ephemeralSec: number | undefined; sentAt: string; v?: 1 | 2 } | undefined,
  localDeadline: number | undefined,
): number | undefined {
  if (!signed) return undefined;
  if (signed.ephemeralSec === undefined) {
    // v2 signs permanence: whatever the server claims, it stays (issue 27 M4).
    if (signed.v === 2) return undefined;
    return entry.isEphemeral && entry.expiresAt !== null ? Date.parse(entry.expiresAt) : undefined;
  }
  if (!entry.isOwn) return localDeadline;
  if (entry.readAt === null) return undefined;
  const start = Math.max(Date.parse(entry.readAt), Date.parse(signed.sentAt));
  return Number.isNaN(start) ? undefined : start + signed.ephemeralSec * 1000;
}

/** A delay in short French: "30 s", "5 min", "1 h 30", "1 j". */
export function formatDelay(seconds: number): string {
  if (seconds < 60) return `${seconds}\u00a0s`;
  if (seconds < 3600) {
    const m = Math.floor(seconds / 60);
    const s = seconds % 60;
    return s ? `${m}\u00a0min\u00a0${s}\u00a0s` : `${m}\u00a0min`;
  }
  if (seconds % 86_400 === 0) return `${seconds / 86_400}\u00a0j`;
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return m ? `${h}\u00a0h\u00a0${String(m).padStart(2, '0')}` : `${h}\u00a0h`;
}

/**
 * The countdown of an ephemeral message: "mm:ss" (spec 2 §2), "h:mm:ss" from one hour (the delay
 * may be up to a day). Whole seconds, rounded up, never negative.
 */
export function formatCountdown(remainingMs: number): string {
  const total = Math.max(0, Math.ceil(remainingMs / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const mmss = `${String(minutes).padStart(2, '0')}:${String(seconds).padStart(2, '0')}`;
  return hours > 0 ? `${hours}:${mmss}` : mmss;
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/**
 * French short time of a message: "14:05" today, "23/11/2026 14:05" before (local time, as
 * date-fns' `HH:mm` and `dd/MM/yyyy HH:mm`, which the room no longer downloads for two patterns).
 */
export function formatMessageTime(iso: string, now: Date = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) throw new RangeError('Invalid time value');
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}`;
  if (isSameDay(date, now)) return time;
  return `${pad(date.getDate())}/${pad(date.getMonth() + 1)}/${pad(date.getFullYear(), 4)} ${time}`;
}

/** Auto-scroll only when the reader is within this distance of the bottom (spec 2 §2). */
export const AUTO_SCROLL_THRESHOLD_PX = 120;

export function isNearBottom(
  box: { scrollTop: number; clientHeight: number; scrollHeight: number },
  threshold = AUTO_SCROLL_THRESHOLD_PX,
): boolean {
  return box.scrollHeight - box.scrollTop - box.clientHeight <= threshold;
}

// ---- Sending ----------------------------------------------------------------------------------

/** Spec 2 §5: only non-blank text, and not while a send is in progress. */
export function canSend(text: string, sendInProgress: boolean): boolean {
  return !sendInProgress && text.trim().length > 0;
}

/** What a failed attempt tells the sender to do next. */
export type SendDecision =
  { action: 'reencrypt' } | { action: 'retry'; delayMs: number } | { action: 'fail'; message: string };

/** A failed attempt, as the feed sees it. */
export interface SendFailure {
  /** HTTP status; 0 when the server could not be reached. */
  status: number;
  /** `code` of a 409 (epoch_stale, rotation_required, members_changed…). */
  code?: string;
  /** French message of the server, when it gave one. */
  message?: string;
}

export const MAX_REENCRYPTIONS = 3;
export const MAX_NETWORK_RETRIES = 6;
const RETRY_BASE_MS = 1000;
const RETRY_MAX_MS = 15_000;
const REENCRYPT_CODES: ReadonlySet<string> = new Set<TE2eeErrorCode>([
  'epoch_stale',
  'rotation_required',
  'members_changed',
]);

/**
 * After a failed send: a 409 about the Ring key (new epoch, rotation due, members changed) →
 * make the key sendable again and re-encrypt (same client message id); no answer, a server error
 * or a rate limit → re-send the same envelope after a growing delay (the server stores a client
 * message id once, so this is safe); anything else (too long, refused) → give up with its message.
 */
export function sendRetryDecision(
  failure: SendFailure,
  attempts: { reencryptions: number; retries: number },
  fallbackMessage: string,
): SendDecision {
  if (failure.status === 409 && failure.code && REENCRYPT_CODES.has(failure.code)) {
    return attempts.reencryptions < MAX_REENCRYPTIONS
      ? { action: 'reencrypt' }
      : { action: 'fail', message: failure.message ?? fallbackMessage };
  }
  if (failure.status === 0 || failure.status === 429 || failure.status >= 500) {
    return attempts.retries < MAX_NETWORK_RETRIES
      ? { action: 'retry', delayMs: Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** attempts.retries) }
      : { action: 'fail', message: failure.message ?? fallbackMessage };
  }
  return { action: 'fail', message: failure.message ?? fallbackMessage };
}

// ---- Realtime fallback ------------------------------------------------------------------------

/** The realtime settings (spec 2 §3, §9) with the §5 minimums applied. */
export interface RealtimePolicy {
  wsRequired: boolean;
  pollingEnabled: boolean;
  initialMs: number;
  maxMs: number;
  factor: number;
  heartbeatMs: number;
  /** How long the socket may be down before polling starts. */
  graceMs: number;
}

const number = (value: string | undefined, fallback: number) => {
  const parsed = value === undefined || value.trim() === '' ? NaN : Number(value);
  return Number.isFinite(parsed) ? parsed : fallback;
};

/**
 * Reads the public `realtime` settings: defaults 60 s initial, 300 s max, factor 2, heartbeat 20 s,
 * grace 3 s, websocket required (§9); initial delay at least 10 s, max at least the initial delay,
 * factor at least 1, heartbeat at least 5 s (§5).
 */
export function realtimePolicy(settings: Readonly<Record<string, string>> | undefined): RealtimePolicy {
  const s = settings ?? {};
  const initialSec = Math.max(10, number(s.polling_initial_sec, 60));
  const maxSec = Math.max(initialSec, number(s.polling_max_sec, 300));
  return {
    wsRequired: (s.ws_required ?? '1') !== '0',
    pollingEnabled: s.polling_enabled === '1',
    initialMs: initialSec * 1000,
    maxMs: maxSec * 1000,
    factor: Math.max(1, number(s.polling_backoff_factor, 2)),
    heartbeatMs: Math.max(5, number(s.heartbeat_sec, 20)) * 1000,
    graceMs: Math.max(0, number(s.grace_sec, 3)) * 1000,
  };
}

/** Polling runs only when the websocket is not required and polling is enabled (spec 2 §4). */
export function pollingAllowed(policy: RealtimePolicy): boolean {
  return !policy.wsRequired && policy.pollingEnabled;
}

/** The delay before the next poll: back to the initial delay when something arrived, else grown by the factor up to the max. */
export function nextPollDelay(
  policy: RealtimePolicy,
  currentMs: number | null,
  gotSomething: boolean,
): number {
  if (currentMs === null || gotSomething) return policy.initialMs;
  return Math.min(policy.maxMs, Math.round(currentMs * policy.factor));
}

// ---- Notifications ----------------------------------------------------------------------------

/** Desktop notices show at most this many characters of the message (spec 2 §9). */
export const NOTICE_TEXT_MAX = 100;
/** Desktop notices close after 5 s (spec 2 §9). */
export const NOTICE_DURATION_MS = 5000;

/** The message cut to 100 characters (code points, so an emoji is never split). */
export function cutNoticeText(text: string, max = NOTICE_TEXT_MAX): string {
  const chars = Array.from(text.replace(/\s+/g, ' ').trim());
  return chars.length <= max ? chars.join('') : `${chars.slice(0, max - 1).join('')}…`;
}

/** The notice type of a message: a DM, an ephemeral message, a mention of the reader, or text. */
export function noticeTypeOf(
  messageType: TNewMessageEvent['messageType'],
  text: string | null,
  readerName: string,
): TNewMessageEvent['messageType'] {
  if (messageType === 'dm' || messageType === 'ephemeral') return messageType;
  if (text && readerName && text.toLocaleLowerCase('fr').includes(`@${readerName.toLocaleLowerCase('fr')}`))
    return 'mention';
  return 'text';
}

/** The sound of a notice: the type's own sound, or the member's chosen one for plain text. */
export function soundOf(type: TNewMessageEvent['messageType'], preferred: MessageSound): MessageSound {
  return type === 'text' ? preferred : type;
}

export interface NoticeDecision {
  /** Raise a notice at all (in-page notice). */
  notify: boolean;
  sound: MessageSound | null;
  desktop: boolean;
}

/**
 * Whether an incoming message raises a notice (spec 2 §3, §4): never for one's own message or one
 * in view, nothing while muted (muteAll or muteUntil in the future); the sound and the desktop
 * notice follow the member's switches, the desktop one only with the browser's permission.
 */
export function decideNotice(input: {
  own: boolean;
  inView: boolean;
  muted: boolean;
  settings: Pick<TNotificationSettings, 'messageSound' | 'messageDesktop' | 'messageNotificationSound'>;
  type: TNewMessageEvent['messageType'];
  desktopPermission: NotificationPermission | 'unsupported';
}): NoticeDecision {
  if (input.own || input.inView || input.muted) return { notify: false, sound: null, desktop: false };
  return {
    notify: true,
    sound: input.settings.messageSound ? soundOf(input.type, input.settings.messageNotificationSound) : null,
    desktop: input.settings.messageDesktop && input.desktopPermission === 'granted',
  };
}

/**
 * The body of a desktop notice: the decrypted text cut to 100 characters — shown only on the
 * member's own device, never the ciphertext. An ephemeral message's text is not handed to the
 * system (its notification centre could keep it after the message expired).
 */
export function noticeBody(text: string | null, isEphemeral: boolean): string {
  if (isEphemeral) return 'Message éphémère\u202f: ouvrez le Ring pour le lire.';
  if (text === null) return 'Nouveau message chiffré';
  // An attachment (issue 29) reads « Pièce jointe : nom », never its JSON.
  const attachment = attachmentSummary(text);
  if (attachment && Array.from(attachment).length <= NOTICE_TEXT_MAX) return attachment;
  return cutNoticeText(attachment ?? text);
}
