import { CHAT_MESSAGES } from '@securering/contract';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ChatEntry } from './chat-policy';
import { initialFeedSnapshot, type FeedSnapshot } from './conversation-feed';
import { MessageList } from './message-list';

const entry: ChatEntry = {
  key: 'bob:c1',
  id: 'm1',
  seq: 1,
  conversationId: 'room',
  clientMessageId: 'c1',
  senderId: 'bob',
  senderName: 'bob',
  timestamp: '2026-11-30T10:00:00.000Z',
  isOwn: false,
  isEphemeral: false,
  expiresAt: null,
  readAt: null,
  epoch: 1,
  content: null,
  status: 'sent',
  localOrder: 0,
};

const snapshot = (over: Partial<FeedSnapshot>): FeedSnapshot => ({
  ...initialFeedSnapshot(),
  loading: false,
  ...over,
});

const notice = { key: 'lea:pending', at: '2026-11-30T11:00:00.000Z', node: <p>La clé de Léa a changé</p> };
const render = (over: Partial<FeedSnapshot>) =>
  renderToStaticMarkup(
    <MessageList
      snapshot={snapshot(over)}
      notices={[notice]}
      onLoadOlder={() => {}}
      onRetry={() => {}}
      onDiscard={() => {}}
    />,
  );

describe('MessageList', () => {
  it('shows the spinner on the first load, and nothing else', () => {
    const html = render({ loading: true });
    expect(html).toContain(CHAT_MESSAGES.loading);
    expect(html).not.toContain('La clé de Léa a changé');
  });

  it('keeps messages and notices on screen while the latest page is read again', () => {
    const html = render({ loading: true, entries: [entry], highestSeq: 1 });
    expect(html).toContain('La clé de Léa a changé');
    expect(html).toContain('aria-busy="true"');
    expect(html).not.toContain(CHAT_MESSAGES.loading);
  });
});
