import { CHAT_MESSAGES } from '@securering/contract';
import {
  AlertTriangle,
  Clock,
  KeyRound,
  Lock,
  Phone,
  PhoneMissed,
  RotateCcw,
  Timer,
  Trash2,
  Video,
} from 'lucide-react';
import { Fragment, memo, useLayoutEffect, useMemo, useRef, type ReactNode } from 'react';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { cn } from '@/lib/utils';
import { callNoticeText, parseCallNotice, type CallNotice } from '../calls/call-notice';
import {
  formatCountdown,
  formatDelay,
  formatMessageTime,
  isExpired,
  isNearBottom,
  messageTime,
  MISSING_MESSAGE,
  missingMessageReason,
  type ChatEntry,
} from './chat-policy';
import { useSecondTicker } from './chat-provider';
import type { FeedSnapshot, ReadState } from './conversation-feed';
import { MessageText } from './message-text';
import { ReadingMarkLine } from './reading-mark-line';
import { readingMarks, type UnreadRange } from './reading-marks';
import {
  DeletedBody,
  EditedMark,
  MovedTombstone,
  ReactionChips,
  ReplyQuote,
  useMessageActionsMenu,
  viewOf,
  type MessageView,
} from './message-action-views';
import { useMessageActionsContext } from './use-message-actions';
import { isAttachmentText } from './attachment-prefix';
import { LazyAttachmentCard } from './lazy-attachments';
import { ReadReceiptMark } from './reading-state';
import { isSignalText } from './reading-text';
import { LazyUnverifiableBody } from './lazy-unverifiable-body';

/** Something that happened in the conversation besides messages (a member's key change). */
export interface TimelineNotice {
  key: string;
  /** UTC ISO time: the notice goes before the first message after it. */
  at: string;
  node: ReactNode;
}

/** Scroll position within this distance of the top loads the previous page. */
const LOAD_OLDER_PX = 48;

/**
 * The messages of a conversation (spec 2 §2 Chat screen): sender, time, lock, own messages on the
 * right, ephemeral countdowns refreshed every second (each reader's own, from its first display;
 * before it, « Éphémère — s'efface N après lecture »), the empty and loading states, auto-scroll
 * when within 120 px of the bottom, older pages when scrolled to the top.
 */
export function MessageList({
  snapshot,
  unreadRange = null,
  notices = [],
  onLoadOlder,
  onRetry,
  onDiscard,
}: {
  snapshot: FeedSnapshot;
  /** The messages unread when the conversation opened: « Nouveaux messages » before (null: none). */
  unreadRange?: UnreadRange | null;
  /** Shown among the messages by time (those before the loaded page wait for it). */
  notices?: readonly TimelineNotice[];
  onLoadOlder: () => void;
  onRetry: (key: string) => void;
  onDiscard: (key: string) => void;
}) {
  const { entries, reads, hideAt, loading, loadError, hasOlder, loadingOlder } = snapshot;
  const box = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const previous = useRef<{ first: string | undefined; last: string | undefined; height: number }>({
    first: undefined,
    last: undefined,
    height: 0,
  });
  const hasEphemeral = hideAt.size > 0 || entries.some((entry) => entry.expiresAt !== null);
  // Replies, reactions, edits and deletions (issue 29): what each message shows after them.
  const actions = useMessageActionsContext();
  const now = useSecondTicker(hasEphemeral);
  // Date separators and « Nouveaux messages » (issue 29), among the messages shown.
  const marks = useMemo(
    () =>
      readingMarks(
        entries.filter(
          (entry) =>
            !snapshot.duplicates.has(entry.key) &&
            !(actions && viewOf(actions.derived, entry, actions.nameOf).hidden),
        ),
        unreadRange,
      ),
    [entries, snapshot.duplicates, actions, unreadRange],
  );

  // After each change: keep the reader where they were when a page was prepended; follow the
  // bottom when they were near it, or when they just sent a message.
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const first = entries[0]?.key;
    const last = entries.at(-1);
    const before = previous.current;
    if (before.first !== undefined && first !== before.first && last?.key === before.last) {
      el.scrollTop += el.scrollHeight - before.height;
    } else if (
      last &&
      last.key !== before.last &&
      (stick.current || (last.isOwn && last.status !== 'sent'))
    ) {
      el.scrollTop = el.scrollHeight;
    }
    previous.current = { first, last: last?.key, height: el.scrollHeight };
  }, [entries]);

  return (
    <div
      ref={box}
      role="log"
      aria-label="Messages"
      aria-busy={loading}
      className="flex-1 space-y-3 overflow-y-auto overscroll-contain px-3 py-4 sm:px-4"
      onScroll={(event) => {
        const el = event.currentTarget;
        stick.current = isNearBottom(el);
        if (el.scrollTop < LOAD_OLDER_PX && hasOlder && !loadingOlder) onLoadOlder();
      }}
    >
      {hasOlder ? (
        <div className="flex justify-center">
          {loadingOlder ? (
            <Spinner label="Chargement des messages plus anciens…" />
          ) : (
            <Button variant="ghost" size="sm" onClick={onLoadOlder}>
              Messages plus anciens
            </Button>
          )}
        </div>
      ) : null}
      {/* A reload of the latest page (after an admission) keeps what is shown, open dialogs included. */}
      {loading && entries.length === 0 ? (
        <div className="flex h-full items-center justify-center">
          <Spinner label={CHAT_MESSAGES.loading} />
        </div>
      ) : loadError && entries.length === 0 ? (
        <p role="alert" className="py-10 text-center text-sm text-red-700">
          {loadError}
        </p>
      ) : entries.length === 0 ? (
        <>
          <p className="py-10 text-center text-sm text-slate-500">{CHAT_MESSAGES.empty}</p>
          {notices.map((notice) => (
            <Fragment key={notice.key}>{notice.node}</Fragment>
          ))}
        </>
      ) : (
        interleave(entries, notices, hasOlder).map((item) => {
          if ('node' in item) return <Fragment key={`notice:${item.key}`}>{item.node}</Fragment>;
          const entry = item;
          const until = hideAt.get(entry.key);
          // A replayed copy of a message already shown (same signed number and hash).
          if (snapshot.duplicates.has(entry.key)) return null;
          const missing = snapshot.missing.get(entry.key);
          const view = actions ? viewOf(actions.derived, entry, actions.nameOf) : undefined;
          const moved = actions?.derived.tombstonesBefore.get(entry.key);
          return (
            <Fragment key={entry.key}>
              {moved?.map((key) => {
                const deletion = entries.find((e) => e.key === key);
                return deletion ? <MovedTombstone key={key} entry={deletion} own={deletion.isOwn} /> : null;
              })}
              <ReadingMarkLine mark={marks.get(entry.key)} />
              {missing ? <MissingMessage kind={missing} senderName={entry.senderName} /> : null}
              {isExpired(entry, now, until) || view?.hidden ? null : (
                <MessageItem
                  entry={entry}
                  read={reads.get(entry.key)}
                  hideAt={until}
                  now={until !== undefined ? now : 0}
                  onRetry={onRetry}
                  onDiscard={onDiscard}
                  view={view}
                />
              )}
            </Fragment>
          );
        })
      )}
    </div>
  );
}

/**
 * Messages with the notices placed by time: a notice goes before the first message sent after it;
 * one older than the first loaded message shows only when no older page is left to load.
 */
export function interleave(
  entries: readonly ChatEntry[],
  notices: readonly TimelineNotice[],
  hasOlder: boolean,
): Array<ChatEntry | TimelineNotice> {
  if (notices.length === 0) return [...entries];
  const time = (iso: string) => Date.parse(iso) || 0;
  const sorted = [...notices].sort((a, b) => time(a.at) - time(b.at));
  const out: Array<ChatEntry | TimelineNotice> = [];
  let next = 0;
  for (const [index, entry] of entries.entries()) {
    while (next < sorted.length && time(sorted[next]!.at) < time(entry.timestamp)) {
      if (index > 0 || !hasOlder) out.push(sorted[next]!);
      next++;
    }
    out.push(entry);
  }
  out.push(...sorted.slice(next));
  return out;
}

const MessageItem = memo(function MessageItem({
  entry,
  read,
  hideAt,
  now,
  onRetry,
  onDiscard,
  view,
}: {
  entry: ChatEntry;
  read: ReadState | undefined;
  hideAt: number | undefined;
  now: number;
  onRetry: (key: string) => void;
  onDiscard: (key: string) => void;
  view?: MessageView | undefined;
}) {
  const own = entry.isOwn;
  const deleted = view?.deleted ?? false;
  // Only text is edited (not an attachment nor a call entry).
  const editable =
    read?.state === 'ok' && !deleted && view?.text !== undefined && !view.text.startsWith('\u0001');
  const menu = useMessageActionsMenu(entry, editable);
  const actions = useMessageActionsContext();
  // A typing or receipt signal the server stored as a message of its sender: not a message.
  if (read?.state === 'ok' && isSignalText(read.text)) return null;
  const callNotice = read?.state === 'ok' ? parseCallNotice(read.text) : null;
  if (callNotice)
    return (
      <CallNoticeItem
        entry={entry}
        notice={callNotice}
        time={messageTime(entry.timestamp, read?.state === 'ok' ? read.signed?.sentAt : undefined).iso}
      />
    );
  const signed = read?.state === 'ok' ? read.signed : undefined;
  const delaySec = signed?.ephemeralSec;
  // The time its sender signed, not the server's (issue 27 M4).
  const time = messageTime(entry.timestamp, signed?.sentAt);
  // Never more than the signed delay (a claimed first reading cannot stretch it).
  const remaining =
    hideAt === undefined ? null : Math.min(hideAt - now, delaySec !== undefined ? delaySec * 1000 : Infinity);
  return (
    <article
      aria-label={`Message de ${own ? 'vous' : entry.senderName}`}
      data-message-id={entry.id ?? undefined}
      data-client-message-id={entry.clientMessageId}
      data-seq={entry.seq ?? undefined}
      data-status={entry.status}
      data-deleted={deleted ? '' : undefined}
      className={cn(
        'group relative flex max-w-[70%] flex-col gap-1',
        own ? 'ml-auto items-end' : 'mr-auto items-start',
      )}
    >
      <p className="flex flex-wrap items-center gap-1.5 text-xs text-slate-500">
        <span className="font-medium text-slate-700">{own ? 'Vous' : entry.senderName}</span>
        <time
          dateTime={time.iso}
          data-time-source={time.signed ? 'signed' : 'server'}
          title={time.signed ? 'Heure d’envoi signée par l’expéditeur' : 'Heure indiquée par le serveur'}
        >
          {formatMessageTime(time.iso)}
        </time>
        {view?.edited && !deleted ? <EditedMark /> : null}
        <Lock
          className="size-3 text-emerald-600"
          aria-label="Chiffré de bout en bout"
          role="img"
          data-legacy={signed?.v === 1 ? '' : undefined}
        >
          {signed?.v === 1 ? (
            <title>Chiffré de bout en bout (ancien format, sans contrôle des messages manquants)</title>
          ) : null}
        </Lock>
        {remaining !== null ? (
          <span
            className="inline-flex items-center gap-0.5 rounded-full bg-amber-100 px-1.5 font-mono text-amber-800"
            title="Message éphémère"
            data-testid="ephemeral-countdown"
          >
            <Timer className="size-3" aria-hidden />
            <span className="sr-only">Message éphémère, disparaît dans </span>
            {formatCountdown(remaining)}
          </span>
        ) : delaySec !== undefined ? (
          <span className="rounded-full bg-amber-50 px-1.5 text-amber-800" data-testid="ephemeral-pending">
            Éphémère — s’efface {formatDelay(delaySec)} après lecture
          </span>
        ) : null}
      </p>
      <div className={cn('flex max-w-full items-start gap-1', own && 'flex-row-reverse')}>
        <div
          {...menu.bubbleProps}
          className={cn(
            'min-w-0 max-w-full whitespace-pre-wrap rounded-2xl px-3 py-2 text-sm shadow-sm [overflow-wrap:anywhere]',
            own
              ? 'rounded-br-sm bg-primary text-primary-foreground'
              : 'rounded-bl-sm bg-slate-100 text-slate-900',
            entry.status !== 'sent' && 'opacity-80',
            // An attachment's card is its own frame (issue 29).
            !deleted &&
              read?.state === 'ok' &&
              isAttachmentText(view?.text ?? read.text) &&
              'bg-transparent p-0 shadow-none',
          )}
        >
          {view?.quote && !deleted ? <ReplyQuote quote={view.quote} own={own} /> : null}
          {deleted ? <DeletedBody /> : <MessageBody read={read} own={own} text={view?.text} entry={entry} />}
        </div>
        {deleted ? null : menu.button}
      </div>
      {deleted ? null : menu.menu}
      {view?.reactions && actions && !deleted ? (
        <ReactionChips entry={entry} reactions={view.reactions} actions={actions} />
      ) : null}
      {own && entry.status !== 'sent' ? (
        <SendState entry={entry} onRetry={onRetry} onDiscard={onDiscard} />
      ) : null}
      {own && entry.status === 'sent' && !deleted ? (
        <ReadReceiptMark conversationId={entry.conversationId} seq={entry.seq} nameOf={actions?.nameOf} />
      ) : null}
    </article>
  );
});

/** A call in the private conversation (issue 29): one centred line, signed by the caller. */
function CallNoticeItem({ entry, notice, time }: { entry: ChatEntry; notice: CallNotice; time: string }) {
  const missed = notice.outcome !== 'answered';
  const text = callNoticeText(notice, { own: entry.isOwn, senderName: entry.senderName });
  const Icon = missed ? PhoneMissed : notice.video ? Video : Phone;
  return (
    <article
      aria-label={text}
      data-testid="call-notice"
      data-message-id={entry.id ?? undefined}
      data-seq={entry.seq ?? undefined}
      className="flex justify-center"
    >
      <p
        className={cn(
          'inline-flex items-center gap-1.5 rounded-full px-3 py-1 text-xs',
          missed && !entry.isOwn ? 'bg-red-50 text-red-800' : 'bg-slate-100 text-slate-700',
        )}
      >
        <Icon className="size-3.5" aria-hidden />
        <span>{text}</span>
        <time dateTime={time} className="text-slate-500">
          {formatMessageTime(time)}
        </time>
      </p>
    </article>
  );
}

/** Where a sender's signed sequence breaks (issue 27 M4): a small system line. */
function MissingMessage({ kind, senderName }: { kind: 'gap' | 'fork'; senderName: string }) {
  return (
    <p
      role="note"
      data-testid="message-missing"
      data-kind={kind}
      title={missingMessageReason(kind, senderName)}
      className="flex items-center justify-center gap-1 text-xs italic text-amber-800"
    >
      <AlertTriangle className="size-3" aria-hidden />
      {MISSING_MESSAGE}
    </p>
  );
}

function MessageBody({
  read,
  own,
  text: shown,
  entry,
}: {
  read: ReadState | undefined;
  own: boolean;
  /** The text after message actions (a structured message's text, an edit): issue 29. */
  text?: string | undefined;
  entry: ChatEntry;
}) {
  if (!read || read.state === 'pending') return <span className="italic opacity-70">Déchiffrement…</span>;
  if (read.state === 'ok') {
    const text = shown ?? read.text;
    return isAttachmentText(text) ? (
      <LazyAttachmentCard text={text} />
    ) : (
      <MessageText text={text} own={own} />
    );
  }
  if (read.state === 'waiting')
    return (
      <span className="inline-flex items-center gap-1 italic opacity-80">
        <KeyRound className="size-3.5" aria-hidden /> En attente de la clé de chiffrement…
      </span>
    );
  return <LazyUnverifiableBody senderId={entry.senderId} senderName={entry.senderName} />;
}

function SendState({
  entry,
  onRetry,
  onDiscard,
}: {
  entry: ChatEntry;
  onRetry: (key: string) => void;
  onDiscard: (key: string) => void;
}) {
  if (entry.status === 'failed')
    return (
      <div className="flex flex-wrap items-center justify-end gap-1 text-xs text-red-700" role="alert">
        <span>Échec de l’envoi{entry.error ? ` : ${entry.error}` : ''}</span>
        <Button variant="ghost" size="sm" className="h-6 px-2 text-xs" onClick={() => onRetry(entry.key)}>
          <RotateCcw aria-hidden /> Réessayer
        </Button>
        <Button variant="ghost" size="sm" className="h-6 px-2 text-xs" onClick={() => onDiscard(entry.key)}>
          <Trash2 aria-hidden /> Retirer
        </Button>
      </div>
    );
  return (
    <span className="inline-flex items-center gap-1 text-xs text-slate-500">
      <Clock className="size-3" aria-hidden />
      {entry.status === 'retrying' ? 'Nouvel essai d’envoi…' : 'Envoi…'}
    </span>
  );
}
