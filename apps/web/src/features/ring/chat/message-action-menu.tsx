import { CornerUpLeft, Pencil, SmilePlus, Trash2, X } from 'lucide-react';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { Button } from '@/components/ui/button';
import { cn } from '@/lib/utils';
import { cutNoticeText, type ChatEntry } from './chat-policy';
import type { MessageActionsValue } from './use-message-actions';

/** The reactions one click away. */
export const QUICK_REACTIONS = ['👍', '❤️', '😂', '😮', '😢', '🙏'] as const;

/** The picker's small owned set (no library): common faces, gestures, symbols. */
export const EMOJI_SET: readonly string[] = [
  '😀 😃 😄 😁 😅 🤣 😊 🙂 😉 😍 😘 😎 🤔 🤨 😐 🙄',
  '😏 😴 😌 😛 😜 🤪 😕 🙃 🤯 😳 🥺 😭 😤 😡 🤗 🤫',
  '👍 👎 👌 ✌️ 🤞 👏 🙌 👋 💪 🙏 🤝 👀 ❤️ 🧡 💛 💚',
  '💙 💜 🖤 💔 🔥 ✨ 🎉 🎂 🎁 ☕ 🍕 🍻 ⚽ 🚀 ✅ ❌',
  '⚠️ ❓ ❗ 💡 📌 📎 📅 ⏰ 🔒 🔑 💯 👑 🌞 🌧️ ❄️ 🌈',
]
  .join(' ')
  .split(' ');

/**
 * A message's actions (issue 29), loaded on first use: Répondre, a reaction (quick set or the
 * picker), and for the reader's own messages Modifier and Supprimer (asked again before deleting
 * for everyone). Escape or a click elsewhere closes it.
 */
export function MessageActionMenu({
  entry,
  actions,
  own,
  editable,
  above = false,
  onClose,
}: {
  entry: ChatEntry;
  actions: MessageActionsValue;
  own: boolean;
  editable: boolean;
  /** Opens above the message (it sits low in the list). */
  above?: boolean;
  onClose: () => void;
}) {
  const panel = useRef<HTMLDivElement>(null);
  const [picker, setPicker] = useState(false);
  const [confirming, setConfirming] = useState(false);

  // The latest onClose (the list re-renders as messages arrive; focus must not jump back).
  const close = useRef(onClose);
  useEffect(() => {
    close.current = onClose;
  });
  useEffect(() => {
    panel.current?.scrollIntoView?.({ block: 'nearest' });
    panel.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus({ preventScroll: true });
    const outside = (event: globalThis.PointerEvent) => {
      if (panel.current && !panel.current.contains(event.target as Node)) close.current();
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, []);

  const handleKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      onClose();
      return;
    }
    if (
      event.key !== 'ArrowDown' &&
      event.key !== 'ArrowUp' &&
      event.key !== 'ArrowLeft' &&
      event.key !== 'ArrowRight'
    )
      return;
    const items = [...(panel.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    const step = event.key === 'ArrowDown' || event.key === 'ArrowRight' ? 1 : -1;
    event.preventDefault();
    items[(at + step + items.length) % items.length]?.focus();
  };

  const react = (emoji: string) => {
    actions.react(entry, emoji);
    onClose();
  };
  const item =
    'flex w-full items-center gap-2 rounded px-2 py-1.5 text-left text-sm hover:bg-slate-100 focus:bg-slate-100 focus:outline-none';
  const emojiButton =
    'rounded p-1 text-lg leading-none hover:bg-slate-100 focus:bg-slate-100 focus:outline-none';

  return (
    <div
      ref={panel}
      role="menu"
      aria-label="Actions du message"
      onKeyDown={handleKeyDown}
      className={cn(
        'absolute z-30 w-64 rounded-md border border-slate-200 bg-white p-1 text-slate-900 shadow-lg',
        above ? 'bottom-full mb-1' : 'top-full mt-1',
        own ? 'right-0' : 'left-0',
      )}
    >
      {confirming ? (
        <div className="space-y-2 p-2 text-sm">
          <p>Supprimer ce message pour tous les membres de la conversation&#8239;?</p>
          <div className="flex justify-end gap-1">
            <button type="button" role="menuitem" className={cn(item, 'w-auto')} onClick={onClose}>
              Annuler
            </button>
            <button
              type="button"
              role="menuitem"
              className={cn(item, 'w-auto bg-red-600 text-white hover:bg-red-700 focus:bg-red-700')}
              onClick={() => {
                void actions.remove(entry);
                onClose();
              }}
            >
              <Trash2 className="size-4" aria-hidden /> Supprimer
            </button>
          </div>
        </div>
      ) : (
        <>
          <div
            className="flex flex-wrap items-center gap-0.5 border-b border-slate-100 pb-1"
            aria-label="Réagir"
          >
            {(picker ? EMOJI_SET : QUICK_REACTIONS).map((emoji) => (
              <button
                key={emoji}
                type="button"
                role="menuitem"
                aria-label={`Réagir ${emoji}`}
                className={emojiButton}
                onClick={() => react(emoji)}
              >
                {emoji}
              </button>
            ))}
            {picker ? null : (
              <button
                type="button"
                role="menuitem"
                aria-label="Plus de réactions"
                title="Plus de réactions"
                className={emojiButton}
                onClick={() => setPicker(true)}
              >
                <SmilePlus className="size-5 text-slate-500" aria-hidden />
              </button>
            )}
          </div>
          <button
            type="button"
            role="menuitem"
            className={item}
            onClick={() => {
              actions.reply(entry);
              onClose();
            }}
          >
            <CornerUpLeft className="size-4" aria-hidden /> Répondre
          </button>
          {own && editable ? (
            <button
              type="button"
              role="menuitem"
              className={item}
              onClick={() => {
                actions.edit(entry);
                onClose();
              }}
            >
              <Pencil className="size-4" aria-hidden /> Modifier
            </button>
          ) : null}
          {own ? (
            <button
              type="button"
              role="menuitem"
              className={cn(item, 'text-red-700')}
              onClick={() => setConfirming(true)}
            >
              <Trash2 className="size-4" aria-hidden /> Supprimer
            </button>
          ) : null}
        </>
      )}
    </div>
  );
}

/** Above the composer: the message being answered or edited, with « Annuler ». */
export function DraftBanner({
  label,
  text,
  onCancel,
}: {
  label: string;
  text: string;
  onCancel: () => void;
}) {
  return (
    <div
      className="mb-2 flex items-start gap-2 rounded-md border-l-4 border-primary bg-slate-50 px-3 py-1.5 text-xs"
      data-testid="composer-draft"
    >
      <div className="min-w-0 flex-1">
        <p className="font-medium text-slate-700">{label}</p>
        <p className="truncate text-slate-600">{cutNoticeText(text, 120)}</p>
      </div>
      <Button type="button" variant="ghost" size="sm" className="h-6 px-2 text-xs" onClick={onCancel}>
        <X aria-hidden /> Annuler
      </Button>
    </div>
  );
}
