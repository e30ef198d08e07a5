import {
  MAX_JOIN_CATCH_UP,
  type TConversationSummary,
  type TJoinCatchUp,
  type TJoinMissed,
} from '@securering/contract';
import { describe, expect, it } from 'vitest';
import { JoinCatchUpHub, type JoinCatchUpSource } from './join-catch-up';

function source(held: TJoinCatchUp[], wantsConversations = false) {
  const calls: Array<{ asked: string[]; missed: string[]; conversations: number | undefined }> = [];
  const value: JoinCatchUpSource = {
    held: () => held,
    wantsConversations: () => wantsConversations,
    joined: ({ asked, missed, conversations }) => {
      calls.push({ asked: [...asked], missed: [...missed.keys()], conversations: conversations?.length });
    },
  };
  return { value, calls };
}

const item = (conversationId: string, since = 0): TJoinCatchUp => ({ conversationId, since });
const missed = (conversationId: string): TJoinMissed => ({ conversationId, messages: [], hasMore: false });
const room: TConversationSummary = {
  id: 'room:general',
  kind: 'room',
  peer: null,
  lastSeq: 3,
  lastReadSeq: 1,
  unread: 2,
  lastActivityAt: '2026-11-29T08:00:00.000Z',
};

describe('join_ring catch-up hub', () => {
  it('asks each conversation once, at most MAX_JOIN_CATCH_UP, in the order of the sources', () => {
    const hub = new JoinCatchUpHub();
    const many = Array.from({ length: MAX_JOIN_CATCH_UP + 5 }, (_, i) => item(`dm:${i}`));
    hub.register(source([item('room:general', 3), item('dm:0', 1)]).value);
    hub.register(source(many).value);
    const { catchUp = [], conversations } = hub.request();
    expect(catchUp).toHaveLength(MAX_JOIN_CATCH_UP);
    expect(catchUp.slice(0, 3)).toEqual([item('room:general', 3), item('dm:0', 1), item('dm:1')]);
    expect(conversations).toBeUndefined();
  });

  it('asks for the conversation list when a source wants it, and hands it over only when asked', () => {
    const hub = new JoinCatchUpHub();
    const chat = source([], true);
    hub.register(chat.value);
    expect(hub.request()).toEqual({ conversations: true });
    hub.answered({ conversations: [room] }, { conversations: true });
    hub.answered({ conversations: [room] }, {});
    expect(chat.calls.map((c) => c.conversations)).toEqual([1, undefined]);
  });

  it('asks for the key revision when a source wants it, and hands it over only when asked', () => {
    const hub = new JoinCatchUpHub();
    const revisions: Array<number | undefined> = [];
    hub.register({ held: () => [], joined: () => undefined });
    expect(hub.request()).toEqual({});
    hub.register({
      held: () => [],
      wantsKeyRevision: () => true,
      joined: ({ keyRevision }) => revisions.push(keyRevision),
    });
    expect(hub.request()).toEqual({ keyRevision: true });
    hub.answered({ keyRevision: 7 }, { keyRevision: true });
    hub.answered({ keyRevision: 8 }, {});
    hub.answered({}, { keyRevision: true });
    expect(revisions).toEqual([7, undefined, undefined]);
  });

  it('hands each source the answers to what was asked, and tells when the socket is joined', () => {
    const hub = new JoinCatchUpHub();
    const chat = source([item('room:general')]);
    const stop = hub.register(chat.value);
    expect(hub.isJoined).toBe(false);
    // An answer for a conversation not asked is ignored.
    hub.answered(
      { missed: [missed('room:general'), missed('dm:x')] },
      { catchUp: [item('room:general'), item('dm:a')] },
    );
    expect(hub.isJoined).toBe(true);
    expect(chat.calls).toEqual([
      { asked: ['room:general', 'dm:a'], missed: ['room:general'], conversations: undefined },
    ]);
    hub.left();
    expect(hub.isJoined).toBe(false);
    stop();
    hub.answered({}, {});
    expect(chat.calls).toHaveLength(1);
    expect(hub.request()).toEqual({});
  });
});
