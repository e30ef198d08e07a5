import { CornerUpLeft, MoreHorizontal, Trash2 } from 'lucide-react';
import { lazy, Suspense, useRef, useState, type PointerEvent } from 'react';
import { cn } from '@/lib/utils';
import type { ChatEntry } from './chat-policy';
import {
  DELETED_MESSAGE,
  EDITED_MARK,
  quoteOf,
  type DerivedActions,
  type ReactionCount,
} from './message-actions';
import { useMessageActionsContext, type MessageActionsValue } from './use-message-actions';

const MessageActionMenu = lazy(() =>
  import('./message-action-menu').then((m) => ({ default: m.MessageActionMenu })),
);

/** What one entry shows after the conversation's actions (issue 29). */
export interface MessageView {
  /** An action entry (reaction, edit, deletion of a held message): no bubble. */
  hidden: boolean;
  /** Deleted by its sender, or a deletion whose target is gone: « Message supprimé ». */
  deleted: boolean;
  edited: boolean;
  /** The text to show instead of the raw plaintext (structured or edited). */
  text: string | undefined;
  quote: { senderName: string; text: string; available: boolean; target: string } | undefined;
  reactions: readonly ReactionCount[] | undefined;
}

export function viewOf(
  derived: DerivedActions,
  entry: ChatEntry,
  nameOf: (id: string) => string,
): MessageView {
  const target = derived.replies.get(entry.key);
  let quote: MessageView['quote'];
  if (target !== undefined) {
    const senderId = target.slice(0, target.indexOf(':'));
    quote = { senderName: nameOf(senderId), target, ...quoteOf(derived, target) };
  }
  return {
    hidden: derived.hidden.has(entry.key),
    deleted: derived.deleted.has(entry.key) || derived.tombstones.has(entry.key),
    edited: derived.edited.has(entry.key),
    text: derived.texts.get(entry.key),
    quote,
    reactions: derived.reactions.get(entry.key),
  };
}

/** « modifié » beside the time of a message its sender edited. */
export function EditedMark() {
  return (
    <span className="italic text-slate-500" data-testid="message-edited" title="Modifié par son expéditeur">
      {EDITED_MARK}
    </span>
  );
}

/** A deleted message shown where it was (its ciphertext is gone: no time, only who wrote it). */
export function MovedTombstone({ entry, own }: { entry: ChatEntry; own: boolean }) {
  return (
    <article
      aria-label={`Message de ${own ? 'vous' : entry.senderName}`}
      data-deleted=""
      className={cn('flex max-w-[70%] flex-col gap-1', own ? 'ml-auto items-end' : 'mr-auto items-start')}
    >
      <p className="text-xs font-medium text-slate-700">{own ? 'Vous' : entry.senderName}</p>
      <div className="rounded-2xl bg-slate-100 px-3 py-2 text-sm text-slate-900 shadow-sm">
        <DeletedBody />
      </div>
    </article>
  );
}

/** The body of a deleted message. */
export function DeletedBody() {
  return (
    <span className="inline-flex items-center gap-1 italic opacity-80" data-testid="message-deleted">
      <Trash2 className="size-3.5" aria-hidden /> {DELETED_MESSAGE}
    </span>
  );
}

/** The quoted message inside a reply's bubble (as this reader decrypted it); a click shows it. */
export function ReplyQuote({ quote, own }: { quote: NonNullable<MessageView['quote']>; own: boolean }) {
  const clientMessageId = quote.target.slice(quote.target.indexOf(':') + 1);
  return (
    <button
      type="button"
      data-testid="reply-quote"
      className={cn(
        'mb-1 block w-full rounded-md border-l-4 px-2 py-1 text-left text-xs',
        own ? 'border-white/70 bg-white/15' : 'border-primary/60 bg-white/70',
      )}
      onClick={() =>
        document
          .querySelector(`[data-client-message-id="${CSS.escape(clientMessageId)}"]`)
          ?.scrollIntoView({ block: 'center', behavior: 'smooth' })
      }
    >
      <span className="flex items-center gap-1 font-medium">
        <CornerUpLeft className="size-3" aria-hidden /> {quote.senderName}
      </span>
      <span className={cn('line-clamp-2', !quote.available && 'italic')}>{quote.text}</span>
    </button>
  );
}

/** Reactions under a bubble: each emoji with its count; a click adds or removes the reader's own. */
export function ReactionChips({
  entry,
  reactions,
  actions,
}: {
  entry: ChatEntry;
  reactions: readonly ReactionCount[];
  actions: MessageActionsValue;
}) {
  return (
    <div className="flex flex-wrap gap-1" data-testid="reactions">
      {reactions.map((reaction) => (
        <button
          key={reaction.emoji}
          type="button"
          aria-pressed={reaction.mine}
          title={reaction.memberIds.map(actions.nameOf).join(', ')}
          aria-label={`${reaction.emoji} ${reaction.count}${reaction.mine ? ', dont vous\u202f: retirer' : '\u202f: réagir aussi'}`}
          onClick={() => actions.react(entry, reaction.emoji)}
          className={cn(
            'inline-flex items-center gap-1 rounded-full border px-2 py-0.5 text-xs',
            reaction.mine
              ? 'border-primary bg-primary/10 text-slate-900'
              : 'border-slate-200 bg-white text-slate-700',
          )}
        >
          <span aria-hidden>{reaction.emoji}</span>
          <span aria-hidden>{reaction.count}</span>
        </button>
      ))}
    </div>
  );
}

/** How long a touch stays on a bubble to open its actions (phone). */
const LONG_PRESS_MS = 500;

/**
 * « ⋯ » beside a message (shown on hover on desktop, always on a touch screen) and a long press on
 * the bubble: the actions menu, loaded on first use.
 */
export function useMessageActionsMenu(entry: ChatEntry, editable: boolean) {
  const actions = useMessageActionsContext();
  const [open, setOpen] = useState(false);
  // Above the message when it sits in the lower half of the list (the list clips what overflows).
  const [above, setAbove] = useState(false);
  const trigger = useRef<HTMLButtonElement>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  if (!actions || entry.id === null) return { bubbleProps: {}, button: null, menu: null };
  const cancel = () => clearTimeout(timer.current);
  const show = (el: Element | null) => {
    const box = el?.closest('[role="log"]')?.getBoundingClientRect();
    const at = el?.getBoundingClientRect();
    setAbove(Boolean(box && at && at.top > box.top + box.height / 2));
    setOpen(true);
  };
  const bubbleProps = {
    onPointerDown: (event: PointerEvent) => {
      if (event.pointerType !== 'touch') return;
      cancel();
      const el = event.currentTarget;
      timer.current = setTimeout(() => show(el), LONG_PRESS_MS);
    },
    onPointerUp: cancel,
    onPointerMove: cancel,
    onPointerCancel: cancel,
  };
  const button = (
    <button
      ref={trigger}
      type="button"
      aria-label="Actions du message"
      aria-haspopup="menu"
      aria-expanded={open}
      data-testid="message-actions-button"
      onClick={(event) => (open ? setOpen(false) : show(event.currentTarget))}
      className={cn(
        'self-center rounded-full p-1 text-slate-500 hover:bg-slate-100 focus-visible:opacity-100',
        'opacity-0 group-hover:opacity-100 [@media(hover:none)]:opacity-100',
        open && 'opacity-100',
      )}
    >
      <MoreHorizontal className="size-4" aria-hidden />
    </button>
  );
  const menu = open ? (
    <Suspense fallback={null}>
      <MessageActionMenu
        entry={entry}
        actions={actions}
        own={entry.senderId === actions.me}
        editable={editable}
        above={above}
        onClose={() => {
          setOpen(false);
          trigger.current?.focus();
        }}
      />
    </Suspense>
  ) : null;
  return { bubbleProps, button, menu };
}
