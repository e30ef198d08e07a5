import { useEffect, useState, type KeyboardEvent, type RefObject } from 'react';
import { cn } from '@/lib/utils';
import { mentionQuery } from './message-action-encoding';

/** Members offered at most for one « @ » (the list stays short enough to scan). */
const MAX_SUGGESTIONS = 6;

/** The « @quer » before the caret and the members whose name starts with it (issue 29). */
export function mentionCandidatesFor(
  text: string,
  caret: number,
  members: ReadonlyArray<{ id: string; username: string }>,
): { start: number; items: Array<{ id: string; username: string }> } | null {
  const query = mentionQuery(text, caret);
  if (!query || members.length === 0) return null;
  const q = query.query.toLocaleLowerCase('fr');
  const items = members
    .filter((m) => m.username.toLocaleLowerCase('fr').startsWith(q))
    .slice(0, MAX_SUGGESTIONS);
  return { start: query.start, items };
}

/** A key the composer hands to the open list first: true when the list used it. */
export type MentionKeyHandler = (event: KeyboardEvent<HTMLTextAreaElement>) => boolean;

/**
 * The « @ » autocomplete of the composer (loaded when an « @ » is typed): Ring members whose name
 * starts with what follows it, chosen with the arrows and Enter (or Tab), or a click; Escape
 * closes it. Picking writes « @name » in the box.
 */
export function MentionSuggestions({
  id,
  text,
  caret,
  members,
  box,
  keysRef,
  onPick,
}: {
  id: string;
  text: string;
  caret: number;
  members: ReadonlyArray<{ id: string; username: string }>;
  box: RefObject<HTMLTextAreaElement | null>;
  keysRef: RefObject<MentionKeyHandler | null>;
  /** The new text and where the caret goes. */
  onPick: (text: string, caret: number) => void;
}) {
  const [active, setActive] = useState(0);
  const [closedAt, setClosedAt] = useState<string | null>(null);
  const found = closedAt === text ? null : mentionCandidatesFor(text, caret, members);
  const items = found?.items ?? [];
  const current = Math.min(active, Math.max(0, items.length - 1));

  const pick = (username: string) => {
    if (!found) return;
    const next = `${text.slice(0, found.start)}@${username} ${text.slice(caret)}`;
    setActive(0);
    onPick(next, found.start + username.length + 2);
  };

  useEffect(() => {
    const el = box.current;
    const open = items.length > 0;
    el?.setAttribute('aria-expanded', String(open));
    if (open) {
      el?.setAttribute('aria-controls', id);
      el?.setAttribute('aria-activedescendant', `${id}-${current}`);
    } else {
      el?.removeAttribute('aria-controls');
      el?.removeAttribute('aria-activedescendant');
    }
    keysRef.current = (event) => {
      if (!open || event.nativeEvent.isComposing) return false;
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        const step = event.key === 'ArrowDown' ? 1 : items.length - 1;
        setActive((current + step) % items.length);
      } else if (event.key === 'Enter' || event.key === 'Tab') {
        pick(items[current]!.username);
      } else if (event.key === 'Escape') {
        setClosedAt(text);
      } else {
        return false;
      }
      event.preventDefault();
      return true;
    };
    return () => {
      keysRef.current = null;
      el?.removeAttribute('aria-controls');
      el?.removeAttribute('aria-activedescendant');
      el?.setAttribute('aria-expanded', 'false');
    };
  });

  if (items.length === 0) return null;
  return (
    <ul
      id={id}
      role="listbox"
      aria-label="Mentionner un membre"
      className="absolute bottom-full left-3 z-20 mb-1 max-w-xs overflow-hidden rounded-md border border-slate-200 bg-white py-1 text-sm shadow-lg"
    >
      {items.map((member, index) => (
        <li
          key={member.id}
          id={`${id}-${index}`}
          role="option"
          aria-selected={index === current}
          className={cn(
            'cursor-pointer px-3 py-1.5',
            index === current ? 'bg-primary/10' : 'hover:bg-slate-50',
          )}
          onMouseDown={(event) => {
            event.preventDefault();
            pick(member.username);
          }}
        >
          @{member.username}
        </li>
      ))}
    </ul>
  );
}
