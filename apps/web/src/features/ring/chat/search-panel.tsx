import { useDeferredValue, useId, useMemo, useState } from 'react';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
  type DialogOpenProps,
} from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { parseCallNotice } from '../calls/call-notice';
import { isAttachmentText } from './attachment-prefix';
import { formatMessageTime, messageTime } from './chat-policy';
import { useChat, useConversationFeed } from './chat-provider';
import { deriveActions } from './message-actions';
import { isSignalText } from './reading-text';
import { MIN_QUERY_LENGTH, searchItems, type SearchItem, type SearchResult } from './search-policy';

/** Older pages « Rechercher dans tout l'historique » loads at most (50 messages each). */
const MAX_HISTORY_PAGES = 200;

/**
 * « Rechercher » (issue 29): finds a message among those this page decrypted, in memory only —
 * nothing is indexed or written to disk. « Rechercher dans tout l’historique » loads the older
 * pages first (decrypted here, like scrolling up). A result scrolls to its message and highlights
 * it. Loaded on first use (chat-header.tsx).
 */
export function SearchPanel({
  conversationId,
  open,
  onOpenChange,
}: { conversationId: string } & DialogOpenProps) {
  const chat = useChat();
  const { feed, snapshot } = useConversationFeed(conversationId);
  const [query, setQuery] = useState('');
  const deferred = useDeferredValue(query);
  const [loadingAll, setLoadingAll] = useState(false);
  const inputId = useId();

  const items = useMemo<SearchItem[]>(() => {
    const derived = deriveActions(snapshot.entries, snapshot.reads, chat.info.user.id);
    const out: SearchItem[] = [];
    for (const entry of snapshot.entries) {
      const read = snapshot.reads.get(entry.key);
      if (read?.state !== 'ok') continue;
      if (
        derived.hidden.has(entry.key) ||
        derived.deleted.has(entry.key) ||
        derived.tombstones.has(entry.key)
      )
        continue;
      const text = derived.texts.get(entry.key) ?? read.text;
      if (isAttachmentText(text) || parseCallNotice(text) || isSignalText(text)) continue;
      out.push({
        key: entry.key,
        messageId: entry.id,
        clientMessageId: entry.clientMessageId,
        senderName: entry.isOwn ? 'Vous' : entry.senderName,
        at: messageTime(entry.timestamp, read.signed?.sentAt).iso,
        text,
      });
    }
    return out;
  }, [snapshot.entries, snapshot.reads, chat.info.user.id]);

  const results = useMemo(() => searchItems(items, deferred), [items, deferred]);
  const searching = deferred.trim().length >= MIN_QUERY_LENGTH;

  const loadAll = async () => {
    setLoadingAll(true);
    try {
      for (let page = 0; page < MAX_HISTORY_PAGES && feed.getSnapshot().hasOlder; page++) {
        const before = feed.getSnapshot().entries.length;
        await feed.loadOlder();
        if (feed.getSnapshot().entries.length === before) break;
      }
    } finally {
      setLoadingAll(false);
    }
  };

  const jump = (result: SearchResult) => {
    onOpenChange(false);
    // After the dialog gave focus back: scroll the message into the middle and highlight it.
    setTimeout(() => revealMessage(conversationId, result), 50);
  };

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="max-w-xl" aria-describedby={`${inputId}-hint`}>
        <DialogHeader>
          <DialogTitle>Rechercher dans la conversation</DialogTitle>
          <DialogDescription id={`${inputId}-hint`}>
            Parmi les messages déchiffrés dans cette page, sans tenir compte des accents ni des majuscules.
            Rien n’est envoyé au serveur ni enregistré sur l’appareil.
          </DialogDescription>
        </DialogHeader>
        <Input
          type="search"
          autoFocus
          aria-label="Texte à rechercher"
          placeholder="Rechercher…"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
        />
        <div className="flex flex-wrap items-center justify-between gap-2 text-xs text-slate-500">
          <span role="status">
            {searching
              ? results.length === 0
                ? 'Aucun message trouvé.'
                : `${results.length} message${results.length > 1 ? 's' : ''} trouvé${results.length > 1 ? 's' : ''}`
              : `${items.length} message${items.length > 1 ? 's' : ''} déchiffré${items.length > 1 ? 's' : ''} dans cette page`}
          </span>
          {snapshot.hasOlder ? (
            <Button variant="outline" size="sm" disabled={loadingAll} onClick={() => void loadAll()}>
              {loadingAll ? (
                <Spinner label="Chargement de l’historique…" />
              ) : (
                'Rechercher dans tout l’historique'
              )}
            </Button>
          ) : (
            <span>Tout l’historique est chargé.</span>
          )}
        </div>
        {searching && results.length > 0 ? (
          <ul aria-label="Résultats" className="max-h-[50vh] space-y-1 overflow-y-auto">
            {results.map((result) => (
              <li key={result.key}>
                <button
                  type="button"
                  className="w-full rounded-md px-2 py-1.5 text-left text-sm hover:bg-slate-100 focus-visible:bg-slate-100"
                  onClick={() => jump(result)}
                >
                  <span className="flex justify-between gap-2 text-xs text-slate-500">
                    <span className="font-medium text-slate-700">{result.senderName}</span>
                    <time dateTime={result.at}>{formatResultDate(result.at)}</time>
                  </span>
                  <span className="block [overflow-wrap:anywhere]">
                    {result.snippet.before}
                    <mark className="rounded bg-amber-200 px-0.5 text-slate-900">{result.snippet.match}</mark>
                    {result.snippet.after}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        ) : null}
      </DialogContent>
    </Dialog>
  );
}

function formatResultDate(iso: string): string {
  const date = new Date(iso);
  const day = date.toLocaleDateString('fr-FR', { day: 'numeric', month: 'short', year: 'numeric' });
  return `${day}, ${formatMessageTime(iso)}`;
}

/** Scrolls the conversation to the message of `result` and highlights it for a few seconds. */
function revealMessage(conversationId: string, result: SearchResult): void {
  const section = [...document.querySelectorAll<HTMLElement>('section[data-conversation-id]')].find(
    (el) => el.dataset.conversationId === conversationId,
  );
  const articles = section ? [...section.querySelectorAll<HTMLElement>('article')] : [];
  const target = articles.find(
    (el) =>
      (result.messageId !== null && el.dataset.messageId === result.messageId) ||
      el.dataset.clientMessageId === result.clientMessageId,
  );
  if (!target) return;
  target.scrollIntoView({ block: 'center' });
  target.dataset.searchHit = '';
  target.classList.add('rounded-2xl', 'ring-2', 'ring-amber-400', 'ring-offset-2');
  setTimeout(() => {
    delete target.dataset.searchHit;
    target.classList.remove('rounded-2xl', 'ring-2', 'ring-amber-400', 'ring-offset-2');
  }, 3000);
}
