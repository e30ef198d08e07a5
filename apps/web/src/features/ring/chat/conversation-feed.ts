import {
  CHAT_MESSAGES,
  MESSAGES,
  MESSAGE_PAGE,
  type TJoinCatchUp,
  type TJoinMissed,
  type TNewMessageEvent,
} from '@securering/contract';
import {
  checkMessageChains,
  isE2eeError,
  messageHash,
  parseEnvelope,
  type ChainedMessage,
  type MessageChain,
  type MessageHeader,
} from '@securering/e2ee';
import { PeerKeyUnavailable, VerifiedKeyChanged } from '../e2ee/keyring';
import type { RingKeys } from '../e2ee/use-ring-keys';
import type { ChatApi } from './chat-api';
import {
  canSend,
  displayStart,
  entryFromEvent,
  entryFromMessage,
  entryKey,
  ephemeralHideAt,
  hasGap,
  highestSeq,
  mergeEntries,
  sendRetryDecision,
  serverMayRemove,
  splitExpired,
  withSignedClaims,
  type ChatEntry,
  type SendFailure,
} from './chat-policy';
import { recordSeen, seenDeadline } from './ephemeral-seen';
import { browserChainStore, type MessageChainStore } from './message-chain-store';
import { neutralizeTypedText } from '../calls/call-notice';
import { deriveActions, isSilentAction, plainTextOf } from './message-actions';

/** Pushed messages kept for a join_ring answer at most; past them, get.php catches up. */
const MAX_WAITING_FOR_JOIN = 200;

/** What this tab could make of a message's envelope. */
export type ReadState =
  | { state: 'pending' }
  /** `signed`: what the verified header says of the message's lifetime (issue 25). */
  | { state: 'ok'; text: string; signed?: SignedLifetime }
  /** The epoch key (or the sender's key) has not reached this tab yet: tried again when keys change. */
  | { state: 'waiting' }
  | { state: 'unverifiable' };

/**
 * What the sender signed of a message besides its text: the ephemeral delay (seconds; undefined:
 * not ephemeral), the send time, and from envelope v2 on (issue 27 M4) its place in the sender's
 * sequence with the message's hash (what the sender's next message links to).
 */
export interface SignedLifetime {
  ephemeralSec: number | undefined;
  sentAt: string;
  /** 1: legacy envelope, without sequence nor signed permanence. */
  v: 1 | 2;
  chain?: MessageChain;
  hash?: string;
}

/** The (not yet verified) header of an envelope, or undefined when it is none. */
function headerOf(content: string | null): MessageHeader | undefined {
  if (!content) return undefined;
  try {
    return parseEnvelope(content).header;
  } catch {
    return undefined;
  }
}

function signedOf(header: MessageHeader, hash?: string): SignedLifetime {
  return {
    ephemeralSec: header.ephemeralSec,
    sentAt: header.sentAt,
    v: header.v,
    ...(header.chain ? { chain: header.chain } : {}),
    ...(hash !== undefined ? { hash } : {}),
  };
}

/** Hash of a verified envelope (the link its sender's next message names). */
async function hashOf(content: string): Promise<string | undefined> {
  try {
    return await messageHash(parseEnvelope(content));
  } catch {
    return undefined;
  }
}

export interface FeedSnapshot {
  entries: readonly ChatEntry[];
  reads: ReadonlyMap<string, ReadState>;
  /** When each ephemeral message leaves this reader's screen (its own countdown), by entry key. */
  hideAt: ReadonlyMap<string, number>;
  loading: boolean;
  loadError: string | null;
  hasOlder: boolean;
  loadingOlder: boolean;
  /** A send is in progress (spec 2 §5: no second send meanwhile). */
  sending: boolean;
  /** Highest sequence number received (what catch-up asks after). */
  highestSeq: number;
  /**
   * « Message manquant » (issue 27 M4): by entry key, the break in its sender's signed sequence
   * shown just before it (`gap`: a message dropped or deleted by the server; `fork`: not the
   * sequence its sender signed).
   */
  missing: ReadonlyMap<string, 'gap' | 'fork'>;
  /** Replayed copies of messages already shown (same signed number and hash): not shown. */
  duplicates: ReadonlySet<string>;
}

/** A feed before its first page: nothing to show yet, loading. */
export function initialFeedSnapshot(): FeedSnapshot {
  return {
    entries: [],
    reads: new Map(),
    hideAt: new Map(),
    loading: true,
    loadError: null,
    hasOlder: false,
    loadingOlder: false,
    sending: false,
    highestSeq: 0,
    missing: new Map(),
    duplicates: new Set(),
  };
}

export interface FeedDeps {
  conversationId: string;
  memberId: string;
  username: string;
  api: ChatApi;
  /** The room's keys, as of now. */
  keys(): RingKeys;
  /** The Ring's ephemeral delay in seconds as of now (signed in the envelope), null when off. */
  ephemeralSec(): number | null;
  /**
   * Tells the server this member displayed these ephemeral messages for the first time
   * (`message_read`); resolves with its record, rejects when not delivered (tried again later).
   */
  sendReadReceipts?(conversationId: string, messageIds: string[]): Promise<unknown>;
  /** A message could not be read for lack of keys: ask for them. */
  onMissingKey?(): void;
  /** Messages of others that arrived after the first page (pushed or caught up): notices. */
  onNew?(entries: readonly ChatEntry[]): void;
  onSent?(): void;
  onSendError?(message: string): void;
  now?(): number;
  /** Injected in tests (no real delays). */
  sleep?(ms: number): Promise<void>;
  /**
   * Whether the room's socket is joined now (default: yes). Before the join_ring answer, a pushed
   * message that skips sequence numbers waits for it (the answer brings the missing ones).
   */
  joined?(): boolean;
  /** This browser's signed message sequence (default: localStorage, per member). */
  chainStore?: MessageChainStore;
}

/** The French reason of a failed send that is not the server's. */
export function peerKeyMessage(peerName: string, reason: PeerKeyUnavailable['reason']): string {
  return reason === 'changed'
    ? `Le numéro de sécurité de ${peerName} a changé\u202f: confirmez sa nouvelle clé avant de lui écrire.`
    : `${peerName} n’a pas encore créé ses clés de chiffrement\u202f: réessayez quand il se sera connecté.`;
}

const VERIFIED_KEY_CHANGED =
  'Non envoyé\u202f: le numéro de sécurité d’un membre que vous aviez vérifié a changé. Comparez-le de nouveau dans «\u202fUtilisateurs du Ring\u202f».';
const KEYS_NOT_READY = 'Clé du Ring pas encore disponible\u202f: réessayez dans un instant.';

/** The Ring's ephemeral delay a 409 `ephemeral_changed` names (null: off); undefined otherwise. */
function ephemeralChange(error: unknown): number | null | undefined {
  const body = (error as { status?: unknown; body?: { code?: unknown; ephemeralSec?: unknown } } | null)
    ?.body;
  if ((error as { status?: unknown } | null)?.status !== 409 || body?.code !== 'ephemeral_changed')
    return undefined;
  const sec = body.ephemeralSec;
  return sec === null || (typeof sec === 'number' && Number.isInteger(sec) && sec > 0) ? sec : undefined;
}

/** What this tab's own envelope signs of its lifetime (its text is known without decrypting). */
function ownLifetime(content: string | null): SignedLifetime | undefined {
  const header = headerOf(content);
  return header && signedOf(header);
}

/** An ApiError (status, body with the 409 `code`) as the retry rules read it; -1 for anything else. */
function failureOf(error: unknown): SendFailure {
  const api = error as { status?: unknown; body?: { code?: unknown }; message?: unknown } | null;
  if (api && typeof api.status === 'number') {
    const code = api.body?.code;
    return {
      status: api.status,
      ...(typeof code === 'string' ? { code } : {}),
      ...(typeof api.message === 'string' ? { message: api.message } : {}),
    };
  }
  return { status: -1, ...(error instanceof Error ? { message: error.message } : {}) };
}

/**
 * One conversation of the chat in this tab: its messages (each exactly once, in sequence order),
 * what could be decrypted, and the sends of this tab with their retries. It loads the latest page,
 * older pages on demand, and catches up after its highest sequence number whenever told: from the
 * join_ring answer at a (re)join, from get.php (`since=`) on a poll or a gap in pushed sequence
 * numbers. Ephemeral messages are dropped — envelope and decrypted text — when this reader's own
 * countdown ends (first display in this browser plus the signed delay; an own message: the first
 * reading by anyone), even before the server's `messages_deleted`, and never shown again.
 */
export class ConversationFeed {
  private entries: ChatEntry[] = [];
  private readonly reads = new Map<string, ReadState>();
  private highest = 0;
  private loaded = false;
  private loadingPromise: Promise<void> | null = null;
  private catching: Promise<boolean> | null = null;
  private catchAgain = false;
  /** Pushed messages that skipped sequence numbers before the join_ring answer. */
  private waitingForJoin: TNewMessageEvent[] = [];
  private localOrder = 0;
  private disposed = false;
  private expiryTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners = new Set<() => void>();
  private readonly texts = new Map<string, string>();
  private readonly hideAt = new Map<string, number>();
  /** Keys of messages whose countdown ended here: a later page does not bring them back. */
  private readonly gone = new Set<string>();
  /** This member's countdown ends, by message id (ephemeral-seen.ts, cached). */
  private readonly seen = new Map<string, number>();
  private readonly receipts = new Set<string>();
  /** The place in this browser's sequence each own message was signed at (kept for re-encryption). */
  private readonly reserved = new Map<string, MessageChain>();
  private readonly chainStore: MessageChainStore;
  /** Key of the latest message this tab sent (sendAction follows it). */
  private lastSent = '';
  private snapshot: FeedSnapshot = initialFeedSnapshot();

  constructor(private readonly deps: FeedDeps) {
    this.chainStore = deps.chainStore ?? browserChainStore(deps.memberId);
  }

  get conversationId(): string {
    return this.deps.conversationId;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): FeedSnapshot => this.snapshot;

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  private emit(patch: Partial<FeedSnapshot> = {}): void {
    if (this.disposed) return;
    this.snapshot = {
      ...this.snapshot,
      ...patch,
      entries: this.entries,
      reads: new Map(this.reads),
      hideAt: new Map(this.hideAt),
      highestSeq: this.highest,
      ...this.chainBreaks(),
    };
    for (const listener of this.listeners) listener();
  }

  /** Forgets everything (the room or popup closed). */
  dispose(): void {
    this.disposed = true;
    this.waitingForJoin = [];
    clearTimeout(this.expiryTimer);
    this.listeners.clear();
    this.entries = [];
    this.reads.clear();
    this.texts.clear();
    this.hideAt.clear();
  }

  /** The signed sequences of the verified messages held, checked in timeline order. */
  private chainBreaks(): Pick<FeedSnapshot, 'missing' | 'duplicates'> {
    const chained: ChainedMessage[] = [];
    // Senders with a message not verified yet (decrypting, or waiting for a key): it may be the
    // one that seems to be missing, so no gap is shown for them until it is read.
    const unsettled = new Set<string>();
    for (const entry of this.entries) {
      const read = this.reads.get(entry.key);
      if (entry.content && (!read || read.state === 'pending' || read.state === 'waiting'))
        unsettled.add(entry.senderId);
      const signed = read?.state === 'ok' ? read.signed : undefined;
      if (!signed?.chain || signed.hash === undefined) continue;
      chained.push({
        key: entry.key,
        senderId: entry.senderId,
        chain: signed.chain,
        permanent: signed.ephemeralSec === undefined,
        hash: signed.hash,
      });
    }
    // A message its own sender deleted by a signed deletion keeps its signed place (issue 29).
    const phantoms = deriveActions(this.entries, this.reads, this.deps.memberId).phantoms;
    const { breaks, duplicates } = checkMessageChains([...chained, ...phantoms]);
    const shown = breaks.filter((b) => b.kind === 'fork' || !unsettled.has(b.senderId));
    return {
      missing: new Map(shown.map((b) => [b.before.replace(/^deleted:/, ''), b.kind])),
      duplicates: new Set(duplicates.filter((key) => !key.startsWith('deleted:'))),
    };
  }

  // ---- receiving ------------------------------------------------------------------------------

  /** Merges messages in; returns those that were not there before. */
  private add(incoming: ChatEntry[]): ChatEntry[] {
    const now = this.now();
    // An expired message is never shown, even when a page still carries it (the server keeps it
    // until every member read it): nor one whose countdown ended here.
    // A v2 envelope signs its lifetime: the server's isEphemeral / expiresAt give way to it.
    const fresh = incoming
      .map((entry) => withSignedClaims(entry, headerOf(entry.content)))
      .filter(
        (entry) =>
          !(entry.expiresAt && Date.parse(entry.expiresAt) <= now) &&
          !this.gone.has(entry.key) &&
          !(entry.id !== null && !entry.isOwn && (this.seenOf(entry.id) ?? Infinity) <= now),
      );
    const before = new Set(this.entries.map((entry) => entry.key));
    const merged = mergeEntries(this.entries, fresh);
    if (merged === this.entries) return [];
    this.entries = merged;
    this.highest = highestSeq(merged, this.highest);
    this.decryptNew();
    this.scheduleExpiry();
    return merged.filter((entry) => !before.has(entry.key));
  }

  private announce(added: readonly ChatEntry[]): void {
    const others = added.filter((entry) => !entry.isOwn && entry.id !== null);
    if (others.length > 0) this.deps.onNew?.(others);
  }

  /** The latest page (first display). */
  load(): Promise<void> {
    this.loadingPromise ??= (async () => {
      this.emit({ loading: true, loadError: null });
      try {
        const page = await this.deps.api.getMessages({ conversationId: this.conversationId });
        if (this.disposed) return;
        this.add(page.messages.map(entryFromMessage));
        this.loaded = true;
        this.emit({ loading: false, hasOlder: page.hasMore });
      } catch (error) {
        this.loadingPromise = null;
        this.emit({
          loading: false,
          loadError: error instanceof Error ? error.message : CHAT_MESSAGES.loadFailed,
        });
      }
    })();
    return this.loadingPromise;
  }

  /**
   * Reads the latest page again and merges it in: after this member's admission (issue 24) the
   * server serves messages it withheld while the member waited (those it may now read).
   */
  reloadLatest(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    this.loadingPromise = null;
    this.loaded = false;
    return this.load();
  }

  /**
   * Asks the database for every message after the highest sequence number held, page after page,
   * so nothing missed while disconnected is lost. Calls made meanwhile run once more afterwards.
   * Resolves true when something new arrived.
   */
  catchUp(): Promise<boolean> {
    if (!this.loaded) return this.load().then(() => this.snapshot.entries.length > 0);
    if (this.catching) {
      this.catchAgain = true;
      return this.catching;
    }
    this.catching = (async () => {
      let got = false;
      try {
        do {
          this.catchAgain = false;
          for (let page = 0; page < 50 && !this.disposed; page++) {
            const answer = await this.deps.api.getMessages({
              conversationId: this.conversationId,
              since: this.highest,
              limit: MESSAGE_PAGE.max,
            });
            if (answer.messages.length > 0) {
              got = true;
              const added = this.add(answer.messages.map(entryFromMessage));
              this.emit();
              this.announce(added);
            }
            if (!answer.hasMore || answer.messages.length === 0) break;
          }
        } while (this.catchAgain && !this.disposed);
      } catch {
        // The next join or poll tries again.
      } finally {
        this.catching = null;
      }
      return got;
    })();
    return this.catching;
  }

  /** The conversation as a join_ring catch-up asks it (loaded feeds only: the others load). */
  joinCatchUp(): TJoinCatchUp | undefined {
    return this.loaded && !this.disposed
      ? { conversationId: this.conversationId, since: this.highest }
      : undefined;
  }

  /**
   * The socket joined again: `missed` is what join_ring's answer carried for this conversation
   * (undefined: not asked, or not answered). What it brings is merged; get.php goes on only past
   * its page (`hasMore`) or without it. The pushes that waited for it follow.
   */
  joined(missed: TJoinMissed | undefined): void {
    const waiting = this.waitingForJoin;
    this.waitingForJoin = [];
    if (!missed || !this.loaded) {
      void this.catchUp();
      return;
    }
    const added = this.add(missed.messages.map(entryFromMessage));
    this.emit();
    this.announce(added);
    if (missed.hasMore) void this.catchUp();
    for (const event of waiting) this.receive(event);
  }

  /**
   * A message pushed by the socket. When its sequence number skips some (missed while
   * disconnected), it is not shown ahead of them: a catch-up brings them all, in order — the
   * join_ring answer if the socket is joining, get.php otherwise.
   */
  receive(event: TNewMessageEvent): void {
    if (event.conversationId !== this.conversationId) return;
    if (this.loaded && hasGap(this.highest, event.seq)) {
      if (this.deps.joined?.() === false && this.waitingForJoin.length < MAX_WAITING_FOR_JOIN)
        this.waitingForJoin.push(event);
      else void this.catchUp();
      return;
    }
    const added = this.add([entryFromEvent(event, this.deps.memberId)]);
    this.emit();
    this.announce(added);
  }

  /** The page before the oldest message held (scrolling up). */
  async loadOlder(): Promise<void> {
    if (!this.loaded || this.snapshot.loadingOlder || !this.snapshot.hasOlder) return;
    const oldest = this.entries.find((entry) => entry.seq !== null)?.seq;
    if (oldest === undefined || oldest === null) return;
    this.emit({ loadingOlder: true });
    try {
      const page = await this.deps.api.getMessages({
        conversationId: this.conversationId,
        before: oldest,
        limit: MESSAGE_PAGE.default,
      });
      this.add(page.messages.map(entryFromMessage));
      this.emit({ loadingOlder: false, hasOlder: page.hasMore });
    } catch {
      this.emit({ loadingOlder: false });
    }
  }

  /** Messages the server deleted (`messages_deleted`: ephemeral messages at expiry). */
  removeIds(ids: readonly string[]): void {
    const gone = new Set(ids);
    // Not a message its sender signed permanent: the server cannot expire it (issue 27 M4).
    const removed = this.entries.filter(
      (entry) => entry.id !== null && gone.has(entry.id) && serverMayRemove(headerOf(entry.content)),
    );
    if (removed.length === 0) return;
    this.forget(removed);
    this.emit();
  }

  /** Drops expired ephemeral messages now; returns how many went. */
  expire(): number {
    const { kept, expired } = splitExpired(this.entries, this.now(), this.hideAt);
    if (expired.length === 0) return 0;
    for (const entry of expired) this.gone.add(entry.key);
    this.forget(expired, kept);
    this.emit();
    return expired.length;
  }

  private forget(removed: readonly ChatEntry[], kept?: ChatEntry[]): void {
    const keys = new Set(removed.map((entry) => entry.key));
    this.entries = kept ?? this.entries.filter((entry) => !keys.has(entry.key));
    for (const key of keys) {
      this.reads.delete(key);
      this.texts.delete(key);
      this.hideAt.delete(key);
    }
  }

  private seenOf(messageId: string): number | undefined {
    let deadline = this.seen.get(messageId);
    if (deadline === undefined) {
      deadline = seenDeadline(this.deps.memberId, messageId);
      if (deadline !== undefined) this.seen.set(messageId, deadline);
    }
    return deadline;
  }

  /** Each message's own countdown end, from what its sender signed and when it was displayed. */
  private refreshHideAt(): void {
    this.hideAt.clear();
    for (const entry of this.entries) {
      const read = this.reads.get(entry.key);
      if (read?.state !== 'ok') continue;
      const local = entry.id !== null ? this.seenOf(entry.id) : undefined;
      const at = ephemeralHideAt(entry, read.signed, local);
      if (at !== undefined) this.hideAt.set(entry.key, at);
    }
    this.scheduleExpiry();
  }

  /**
   * The chat shows this conversation to the member now: others' ephemeral messages displayed for
   * the first time start their countdowns (recorded in this browser, trusted before the server's
   * record), and the server is told (`message_read`; retried at the next call if it failed).
   */
  markDisplayed(): void {
    if (this.disposed) return;
    const now = this.now();
    const receipts: string[] = [];
    let changed = false;
    for (const entry of this.entries) {
      const read = this.reads.get(entry.key);
      if (entry.isOwn || entry.id === null || read?.state !== 'ok') continue;
      const sec = read.signed?.ephemeralSec;
      if (sec === undefined) continue;
      if (this.seenOf(entry.id) === undefined) {
        const start = displayStart(entry.readAt, read.signed!.sentAt, now);
        this.seen.set(entry.id, recordSeen(this.deps.memberId, entry.id, start + sec * 1000, now));
        changed = true;
      }
      if (entry.readAt === null && !this.receipts.has(entry.id)) receipts.push(entry.id);
    }
    if (receipts.length > 0 && this.deps.sendReadReceipts) {
      for (const id of receipts) this.receipts.add(id);
      this.deps.sendReadReceipts(this.conversationId, receipts).catch(() => {
        for (const id of receipts) this.receipts.delete(id);
      });
    }
    if (changed) {
      this.refreshHideAt();
      this.emit();
    }
  }

  /** `message_first_read`: another member displayed this member's message (its countdown starts). */
  firstRead(messageId: string, readAt: string): void {
    const entry = this.entries.find((e) => e.id === messageId && e.isOwn);
    if (!entry || entry.readAt !== null) return;
    this.entries = this.entries.map((e) => (e === entry ? { ...e, readAt } : e));
    this.refreshHideAt();
    this.emit();
  }

  private scheduleExpiry(): void {
    clearTimeout(this.expiryTimer);
    let next = Infinity;
    for (const entry of this.entries) if (entry.expiresAt) next = Math.min(next, Date.parse(entry.expiresAt));
    for (const at of this.hideAt.values()) next = Math.min(next, at);
    if (!Number.isFinite(next) || this.disposed) return;
    this.expiryTimer = setTimeout(
      () => {
        this.expire();
        this.scheduleExpiry();
      },
      Math.max(0, Math.min(next - this.now() + 5, 2 ** 31 - 1)),
    );
  }

  // ---- decrypting -----------------------------------------------------------------------------

  private decryptNew(): void {
    for (const entry of this.entries) {
      if (!entry.content || this.reads.has(entry.key)) continue;
      const own = this.texts.get(entry.key);
      if (own !== undefined) {
        this.reads.set(entry.key, { state: 'ok', text: own, signed: ownLifetime(entry.content) });
        continue;
      }
      this.decrypt(entry);
    }
  }

  private decrypt(entry: ChatEntry): void {
    const content = entry.content;
    if (!content) return;
    this.reads.set(entry.key, { state: 'pending' });
    this.deps
      .keys()
      .decryptText(content, this.conversationId)
      .then(
        async ({ header, plaintext }) => {
          // The server's copy must be the envelope of this very message.
          if (header.senderId !== entry.senderId || header.clientMessageId !== entry.clientMessageId)
            return { state: 'unverifiable' } as const;
          const signed = signedOf(header, header.chain ? await hashOf(content) : undefined);
          return { state: 'ok', text: plaintext, signed } as const;
        },
        (error: unknown) => {
          if (isE2eeError(error, 'missing_key') || !isE2eeError(error)) {
            this.deps.onMissingKey?.();
            return { state: 'waiting' } as const;
          }
          return { state: 'unverifiable' } as const;
        },
      )
      .then((read) => {
        if (this.disposed || !this.entries.some((e) => e.key === entry.key)) return;
        this.reads.set(entry.key, read);
        this.refreshHideAt();
        this.emit();
      });
  }

  /** Keys changed (a new epoch key or a member's key arrived): try the waiting messages again. */
  retryWaiting(): void {
    let any = false;
    for (const entry of this.entries) {
      if (this.reads.get(entry.key)?.state === 'waiting') {
        this.decrypt(entry);
        any = true;
      }
    }
    if (any) this.emit();
  }

  /**
   * A member's keys changed in the membership log (a reset confirmed): messages that did not
   * verify against the keys known until then are checked again, so a colleague's message shows
   * once its key is confirmed, without a reload. A forgery stays « Message non vérifiable ».
   */
  retryUnverifiable(): void {
    let any = false;
    for (const entry of this.entries) {
      if (this.reads.get(entry.key)?.state === 'unverifiable') {
        this.decrypt(entry);
        any = true;
      }
    }
    if (any) this.emit();
  }

  // ---- sending --------------------------------------------------------------------------------

  /**
   * Sends `text`: a pending bubble shows at once under a new client message id; the message is
   * encrypted, sent, re-encrypted after a key change (409), re-sent unchanged after a network or
   * server failure (the server stores one message per client id), or marked failed. Blank text and
   * a send while one is in progress are ignored (returns false).
   */
  send(text: string, peerName = '', origin: 'typed' | 'call_notice' | 'action' = 'typed'): boolean {
    if (!canSend(text, this.snapshot.sending)) return false;
    // Only the room's call timeline writes call entries; typed text never passes for one.
    if (origin === 'typed') text = neutralizeTypedText(text);
    const clientMessageId = crypto.randomUUID();
    const key = entryKey(this.deps.memberId, clientMessageId);
    this.texts.set(key, text);
    const entry: ChatEntry = {
      key,
      id: null,
      seq: null,
      conversationId: this.conversationId,
      clientMessageId,
      senderId: this.deps.memberId,
      senderName: this.deps.username,
      timestamp: new Date(this.now()).toISOString(),
      isOwn: true,
      isEphemeral: false,
      expiresAt: null,
      readAt: null,
      epoch: 0,
      content: null,
      status: 'sending',
      localOrder: ++this.localOrder,
    };
    this.entries = mergeEntries(this.entries, [entry]);
    this.reads.set(key, { state: 'ok', text });
    this.emit({ sending: true });
    this.lastSent = key;
    void this.deliver(entry, text, peerName);
    return true;
  }

  /**
   * Sends a structured message (message-actions.ts: reply, reaction, edit, deletion) after the
   * send in progress, if any; resolves true once the server stored it, false when it failed.
   */
  async sendAction(text: string, peerName = ''): Promise<boolean> {
    const settled = (test: () => boolean, ms: number) =>
      new Promise<boolean>((resolve) => {
        if (test()) return resolve(true);
        const timer = setTimeout(() => {
          stop();
          resolve(false);
        }, ms);
        const stop = this.subscribe(() => {
          if (!test()) return;
          clearTimeout(timer);
          stop();
          resolve(true);
        });
      });
    // Several actions at once (two quick reactions) go one after the other.
    const deadline = this.now() + 30_000;
    for (;;) {
      if (!(await settled(() => !this.snapshot.sending, Math.max(0, deadline - this.now())))) return false;
      if (this.send(text, peerName, 'action')) break;
      if (this.disposed || !canSend(text, false)) return false;
    }
    const key = this.lastSent;
    const entry = () => this.entries.find((e) => e.key === key);
    await settled(() => {
      const e = entry();
      return !e || e.id !== null || e.status === 'failed';
    }, 120_000);
    return entry()?.id != null;
  }

  /**
   * The text of this tab's latest own message the server has not stored (sending, retrying or
   * failed), if any: what a session that just expired would otherwise lose (issue 28).
   */
  unsentText(): string | null {
    const unsent = this.entries.filter((e) => e.isOwn && e.id === null);
    const last = unsent[unsent.length - 1];
    const text = last ? this.texts.get(last.key) : undefined;
    // A reply or mention goes back as its text; a reaction, edit or deletion is not a draft.
    return text === undefined || isSilentAction(text) ? null : plainTextOf(text);
  }

  /** "Réessayer" on a failed message: the same client message id, encrypted again. */
  retry(key: string, peerName = ''): void {
    const entry = this.entries.find((e) => e.key === key && e.status === 'failed');
    const text = this.texts.get(key);
    if (!entry || text === undefined || this.snapshot.sending) return;
    this.update(key, { status: 'sending', error: undefined });
    this.emit({ sending: true });
    void this.deliver(entry, text, peerName);
  }

  /** Removes a failed message from the list. */
  discard(key: string): void {
    const entry = this.entries.find((e) => e.key === key && e.status === 'failed');
    if (!entry) return;
    // Its number in this browser's sequence is free again (when nothing was signed after it).
    const chain = this.reserved.get(key);
    if (chain) this.chainStore.release(this.conversationId, chain);
    this.reserved.delete(key);
    this.forget([entry]);
    this.emit();
  }

  private update(key: string, patch: Partial<ChatEntry>): void {
    const current = this.entries.find((e) => e.key === key);
    if (!current || current.id !== null) return;
    this.entries = mergeEntries(this.entries, [{ ...current, ...patch, id: null }]);
  }

  private async deliver(entry: ChatEntry, text: string, peerName: string): Promise<void> {
    const sleep = this.deps.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
    const attempts = { reencryptions: 0, retries: 0 };
    let content: string | null = null;
    // The Ring's ephemeral delay, signed in the envelope; the server's setting after a 409.
    let ephemeralSec = this.deps.ephemeralSec();
    let released = false;
    const release = () => {
      if (!released) {
        released = true;
        this.emit({ sending: false });
      }
    };
    try {
      for (;;) {
        if (this.disposed) return;
        try {
          if (!content) {
            const keys = this.deps.keys();
            const epochKey = await keys.ensureSendableEpoch();
            // This browser's next number (the same one again when re-signing this message).
            const chain = this.chainStore.reserve(this.conversationId, this.reserved.get(entry.key));
            const sealed = await keys.encryptText(
              this.conversationId,
              text,
              epochKey,
              entry.clientMessageId,
              ephemeralSec,
              chain,
            );
            const hash = await hashOf(sealed.content);
            if (hash !== undefined) {
              this.chainStore.commit(this.conversationId, chain, hash, ephemeralSec === null);
              this.reserved.set(entry.key, chain);
            }
            content = sealed.content;
            this.update(entry.key, { content, epoch: epochKey.epoch });
            this.reads.set(entry.key, { state: 'ok', text, signed: signedOf(sealed.header, hash) });
          }
          const { message: stored, rotationSoon } = await this.deps.api.send({
            content,
            messageType: 'text',
            clientEncrypted: true,
            conversation_id: this.conversationId,
            isEphemeral: ephemeralSec !== null,
          });
          // The epoch nears its limit: the next one is made now, not when a send finds it due.
          if (rotationSoon) this.deps.keys().rotateAhead(stored.epoch);
          if (this.disposed) return;
          this.add([entryFromMessage(stored)]);
          this.emit();
          release();
          this.deps.onSent?.();
          return;
        } catch (error) {
          if (this.disposed) return;
          if (error instanceof PeerKeyUnavailable) {
            return this.fail(entry.key, peerKeyMessage(peerName || 'Ce membre', error.reason), release);
          }
          if (error instanceof VerifiedKeyChanged) return this.fail(entry.key, VERIFIED_KEY_CHANGED, release);
          if (isE2eeError(error, 'missing_key')) return this.fail(entry.key, KEYS_NOT_READY, release);
          const changed = ephemeralChange(error);
          if (changed !== undefined && attempts.reencryptions < 3) {
            // The Ring's ephemeral setting changed: sign the one in force.
            attempts.reencryptions += 1;
            ephemeralSec = changed;
            content = null;
            continue;
          }
          // The session ended (issue 28): the login form says so, and the text waits in memory
          // for the new login (usePendingDraft), so no « Erreur » notice on top of it.
          if (failureOf(error).status === 401) {
            this.update(entry.key, { status: 'failed', error: MESSAGES.sessionExpired });
            return release();
          }
          const decision = sendRetryDecision(failureOf(error), attempts, CHAT_MESSAGES.sendFailed);
          if (decision.action === 'fail') return this.fail(entry.key, decision.message, release);
          if (decision.action === 'reencrypt') {
            attempts.reencryptions += 1;
            // ensureSendableEpoch reads the key state again (and rotates when due).
            content = null;
            continue;
          }
          attempts.retries += 1;
          this.update(entry.key, { status: 'retrying' });
          release();
          await sleep(decision.delayMs);
        }
      }
    } finally {
      release();
    }
  }

  private fail(key: string, message: string, release: () => void): void {
    this.update(key, { status: 'failed', error: message });
    release();
    this.deps.onSendError?.(message);
  }
}
