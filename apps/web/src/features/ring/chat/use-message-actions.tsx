import {
  createContext,
  lazy,
  Suspense,
  useCallback,
  useContext,
  useMemo,
  useState,
  type ReactNode,
} from 'react';
import { useToast } from '@/components/ui/toast';
import type { ChatEntry } from './chat-policy';
import type { ConversationFeed, FeedSnapshot } from './conversation-feed';
import { deriveActions, quoteOf, type DerivedActions } from './message-actions';

/** Writing actions is loaded at the first one (the room's first paint only reads them). */
const encoding = () => import('./message-action-encoding');
const DraftBanner = lazy(() => import('./message-action-menu').then((m) => ({ default: m.DraftBanner })));

/** What the message list needs to show and start message actions (issue 29). */
export interface MessageActionsValue {
  me: string;
  derived: DerivedActions;
  nameOf(memberId: string): string;
  reply(entry: ChatEntry): void;
  edit(entry: ChatEntry): void;
  /** Adds the reader's reaction, or removes it when they had chosen that emoji. */
  react(entry: ChatEntry, emoji: string): void;
  remove(entry: ChatEntry): Promise<void>;
}

export const MessageActionsContext = createContext<MessageActionsValue | null>(null);

/** The actions of the conversation on screen (null outside a chat panel: no actions). */
export function useMessageActionsContext(): MessageActionsValue | null {
  return useContext(MessageActionsContext);
}

interface Draft {
  mode: 'reply' | 'edit';
  entry: ChatEntry;
  /** Edit: the text the composer starts from. */
  text: string;
}

/**
 * The message actions of one conversation: derived view of the reactions, edits, deletions and
 * replies the feed holds; the reply or edit the composer prepares; sending each action as a
 * signed message; and, for a deletion, the server call that drops the target's ciphertext.
 */
export function useMessageActions({
  feed,
  snapshot,
  conversationId,
  peerName,
  me,
  members,
  send,
}: {
  feed: ConversationFeed;
  snapshot: FeedSnapshot;
  conversationId: string;
  peerName: string;
  me: string;
  members: ReadonlyArray<{ id: string; username: string }>;
  /** The ordinary send of typed text. */
  send: (text: string) => boolean;
}) {
  const notify = useToast();
  const [draft, setDraft] = useState<Draft | null>(null);
  const { entries, reads } = snapshot;
  const derived = useMemo(() => deriveActions(entries, reads, me), [entries, reads, me]);
  const nameOf = useCallback(
    (memberId: string) =>
      memberId === me ? 'Vous' : (members.find((m) => m.id === memberId)?.username ?? 'Un membre'),
    [members, me],
  );

  const fail = useCallback(
    (description: string) => notify({ title: 'Action impossible', description, variant: 'error' }),
    [notify],
  );

  const sendAction = useCallback(
    async (text: string, failure: string) => {
      const ok = await feed.sendAction(text, peerName);
      if (!ok) fail(failure);
      return ok;
    },
    [feed, peerName, fail],
  );

  const value = useMemo<MessageActionsValue>(
    () => ({
      me,
      derived,
      nameOf,
      reply: (entry) => setDraft({ mode: 'reply', entry, text: '' }),
      edit: (entry) => {
        if (entry.senderId !== me) return;
        setDraft({ mode: 'edit', entry, text: derived.texts.get(entry.key) ?? '' });
      },
      react: (entry, emoji) => {
        const mine = derived.reactions.get(entry.key)?.some((r) => r.emoji === emoji && r.mine) ?? false;
        void encoding().then(({ encodeReaction }) =>
          sendAction(
            encodeReaction({ s: entry.senderId, m: entry.clientMessageId }, emoji, !mine),
            'La réaction n’a pas pu être envoyée.',
          ),
        );
      },
      remove: async (entry) => {
        if (entry.senderId !== me) return;
        const { deleteOwnMessage } = await encoding();
        const error = await deleteOwnMessage(entry, conversationId, (text) =>
          feed.sendAction(text, peerName),
        );
        if (error) fail(error);
      },
    }),
    [me, derived, nameOf, sendAction, conversationId, fail, feed, peerName],
  );

  /**
   * The composer's send: an edit, a reply, a message with mentions (an « @ » in it: the mention
   * list goes inside the encrypted body), or plain text. The box empties at once.
   */
  const submit = useCallback(
    (text: string): boolean => {
      if (!draft && !text.includes('@')) return send(text);
      const current = draft;
      setDraft(null);
      void encoding().then(({ composedText }) =>
        sendAction(
          composedText(
            text,
            current,
            members.filter((m) => m.id !== me),
          ),
          current?.mode === 'edit'
            ? 'La modification n’a pas pu être envoyée.'
            : 'Le message n’a pas pu être envoyé.',
        ),
      );
      return true;
    },
    [draft, members, me, send, sendAction],
  );

  const banner: ReactNode = draft ? (
    <Suspense fallback={null}>
      <DraftBanner
        label={
          draft.mode === 'edit' ? 'Modification du message' : `Réponse à ${nameOf(draft.entry.senderId)}`
        }
        text={draft.mode === 'edit' ? draft.text : quoteOf(derived, draft.entry.key).text}
        onCancel={() => setDraft(null)}
      />
    </Suspense>
  ) : null;

  return {
    value,
    submit,
    banner,
    /** The composer starts from this text (an edit), keyed so that it applies once. */
    prefill: draft?.mode === 'edit' ? { key: `edit:${draft.entry.key}`, text: draft.text } : undefined,
    editing: draft?.mode === 'edit',
  };
}
