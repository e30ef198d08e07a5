import { describe, expect, it } from 'vitest';
import type { MessageChain } from '@securering/e2ee';
import { entryKey, type ChatEntry } from './chat-policy';
import type { ReadState } from './conversation-feed';
import { neutralizeTypedText } from '../calls/call-notice';
import {
  encodeDelete,
  encodeEdit,
  encodeMessage,
  encodeReaction,
  mentionQuery,
  mentionedIn,
} from './message-action-encoding';
import {
  DELETED_MESSAGE,
  UNAVAILABLE_MESSAGE,
  deriveActions,
  isSilentAction,
  mentions,
  parseAction,
  plainTextOf,
  quoteOf,
} from './message-actions';

let order = 0;
/** A verified entry of `sender` saying `text`, signed at second `second` (counter = second). */
function msg(sender: string, id: string, text: string, second: number, stream = `${sender}-s`) {
  const entry: ChatEntry = {
    key: entryKey(sender, id),
    id: `srv-${id}`,
    seq: ++order,
    conversationId: 'room:general',
    clientMessageId: id,
    senderId: sender,
    senderName: sender,
    timestamp: new Date(Date.UTC(2026, 10, 29, 8, 0, second)).toISOString(),
    isOwn: sender === 'me',
    isEphemeral: false,
    expiresAt: null,
    readAt: null,
    epoch: 1,
    content: 'x',
    status: 'sent',
    localOrder: 0,
  };
  const chain: MessageChain = { stream, counter: second, prevHash: '1'.repeat(64), lastPermanent: 0 };
  const read: ReadState = {
    state: 'ok',
    text,
    signed: {
      ephemeralSec: undefined,
      sentAt: entry.timestamp,
      v: 2,
      chain,
      hash: String(second).padStart(64, '0'),
    },
  };
  return { entry, read };
}

function derive(items: Array<ReturnType<typeof msg>>, me = 'me') {
  return deriveActions(
    items.map((i) => i.entry),
    new Map(items.map((i) => [i.entry.key, i.read])),
    me,
  );
}

const ref = (s: string, m: string) => ({ s, m });

describe('message actions (issue 29)', () => {
  it('encodes and parses each kind, and refuses malformed bodies', () => {
    expect(encodeMessage({ text: 'bonjour' })).toBe('bonjour');
    expect(parseAction(encodeMessage({ text: 'salut @bob', mentions: ['b', 'b'] }))).toEqual({
      kind: 'msg',
      text: 'salut @bob',
      mentions: ['b'],
    });
    expect(parseAction(encodeMessage({ text: 'oui', replyTo: ref('a', '1') }))).toMatchObject({
      kind: 'msg',
      replyTo: { s: 'a', m: '1' },
    });
    expect(parseAction(encodeReaction(ref('a', '1'), '👍', true))).toEqual({
      kind: 'react',
      to: { s: 'a', m: '1' },
      emoji: '👍',
      on: true,
    });
    expect(parseAction(encodeReaction(ref('a', '1'), '👍🏽', false))).toMatchObject({ emoji: '👍🏽', on: false });
    expect(parseAction(encodeReaction(ref('a', '1'), 'hello', true))).toBeNull();
    expect(parseAction(encodeEdit(ref('a', '1'), 'corrigé'))).toEqual({
      kind: 'edit',
      to: { s: 'a', m: '1' },
      text: 'corrigé',
      mentions: [],
    });
    expect(parseAction(encodeDelete(ref('a', '1')))).toEqual({ kind: 'delete', to: { s: 'a', m: '1' } });
    expect(parseAction('\u0001edit\u0001{"v":1,"to":{"s":"a"},"text":"x"}')).toBeNull();
    expect(parseAction('\u0001delete\u0001{"v":1,"to":{"s":"a","m":"1"},"place":{"hash":"zz"}}')).toBeNull();
    expect(parseAction('\u0001react\u0001pas du json')).toBeNull();
    expect(parseAction('bonjour')).toBeNull();
  });

  it('typed text never passes for an action (its control characters are dropped)', () => {
    const forged = encodeDelete(ref('a', '1'));
    expect(parseAction(neutralizeTypedText(forged))).toBeNull();
    expect(parseAction(neutralizeTypedText(`\u0001${forged}`))).toBeNull();
    // Nor the text inside a message.
    const nested = parseAction(encodeMessage({ text: forged, mentions: ['b'] }));
    expect(nested?.kind === 'msg' && parseAction(nested.text)).toBeNull();
  });

  it('only the original sender edits; the latest edit in the sender’s order wins; « modifié »', () => {
    const original = msg('alice', 'm1', 'Rendez-vous à 10 h', 1);
    const forged = msg('bob', 'e0', encodeEdit(ref('alice', 'm1'), 'Rendez-vous annulé'), 2);
    const late = msg('alice', 'e2', encodeEdit(ref('alice', 'm1'), 'Rendez-vous à 11 h'), 4);
    const early = msg('alice', 'e1', encodeEdit(ref('alice', 'm1'), 'Rendez-vous à 10 h 30'), 3);
    // The server served the later edit first: the sender's order decides, not the server's.
    const derived = derive([original, forged, late, early]);
    expect(derived.texts.get(original.entry.key)).toBe('Rendez-vous à 11 h');
    expect(derived.edited.has(original.entry.key)).toBe(true);
    // Edits and the forged attempt show as no bubble.
    for (const item of [forged, late, early]) expect(derived.hidden.has(item.entry.key)).toBe(true);
    // Only the forgery: nothing changes.
    const onlyForged = derive([original, forged]);
    expect(onlyForged.texts.get(original.entry.key)).toBe('Rendez-vous à 10 h');
    expect(onlyForged.edited.size).toBe(0);
  });

  it('only the original sender deletes; a deletion wins over edits, reactions and quotes', () => {
    const original = msg('alice', 'm1', 'secret', 1);
    const reply = msg('bob', 'r1', encodeMessage({ text: 'vu', replyTo: ref('alice', 'm1') }), 2);
    const like = msg('bob', 'l1', encodeReaction(ref('alice', 'm1'), '👍', true), 3);
    const forged = msg('bob', 'd0', encodeDelete(ref('alice', 'm1')), 4);
    expect(derive([original, reply, like, forged]).deleted.size).toBe(0);
    expect(quoteOf(derive([original, reply]), original.entry.key)).toEqual({
      text: 'secret',
      available: true,
    });

    const deletion = msg('alice', 'd1', encodeDelete(ref('alice', 'm1')), 5);
    const edit = msg('alice', 'e1', encodeEdit(ref('alice', 'm1'), 'autre'), 6);
    const derived = derive([original, reply, like, deletion, edit]);
    expect(derived.deleted.has(original.entry.key)).toBe(true);
    expect(derived.texts.has(original.entry.key)).toBe(false);
    expect(derived.reactions.has(original.entry.key)).toBe(false);
    expect(quoteOf(derived, original.entry.key)).toEqual({ text: DELETED_MESSAGE, available: false });
    // The target is held: the deletion itself shows nothing.
    expect(derived.hidden.has(deletion.entry.key)).toBe(true);
    expect(derived.tombstones.size).toBe(0);
  });

  it('a deletion whose target is gone shows as « Message supprimé » in its place', () => {
    const deletion = msg('alice', 'd1', encodeDelete(ref('alice', 'm1')), 5);
    const derived = derive([deletion]);
    expect(derived.tombstones.has(deletion.entry.key)).toBe(true);
    expect(derived.hidden.has(deletion.entry.key)).toBe(false);
  });

  it('reactions: each member’s latest choice per emoji counts', () => {
    const target = msg('alice', 'm1', 'on déjeune ?', 1);
    const items = [
      target,
      msg('bob', 'a', encodeReaction(ref('alice', 'm1'), '👍', true), 2),
      msg('me', 'b', encodeReaction(ref('alice', 'm1'), '👍', true), 3),
      msg('me', 'c', encodeReaction(ref('alice', 'm1'), '❤️', true), 4),
      msg('me', 'd', encodeReaction(ref('alice', 'm1'), '❤️', false), 5),
      // A replayed « on » signed earlier does not undo the later « off ».
      msg('me', 'e', encodeReaction(ref('alice', 'm1'), '❤️', true), 4),
      msg('carol', 'f', encodeReaction(ref('alice', 'm1'), '😂', true), 6),
    ];
    const list = derive(items).reactions.get(target.entry.key);
    expect(list).toEqual([
      { emoji: '👍', count: 2, mine: true, memberIds: ['bob', 'me'] },
      { emoji: '😂', count: 1, mine: false, memberIds: ['carol'] },
    ]);
  });

  it('a reply quotes the target as this reader decrypted it, or « Message indisponible »', () => {
    const reply = msg('bob', 'r1', encodeMessage({ text: 'oui', replyTo: ref('alice', 'old') }), 2);
    const derived = derive([reply]);
    expect(derived.texts.get(reply.entry.key)).toBe('oui');
    expect(derived.replies.get(reply.entry.key)).toBe(entryKey('alice', 'old'));
    expect(quoteOf(derived, entryKey('alice', 'old'))).toEqual({
      text: UNAVAILABLE_MESSAGE,
      available: false,
    });
  });

  it('mentions: found by whole @name, carried in the body, noticed for the one named', () => {
    const members = [
      { id: 'b', username: 'bob' },
      { id: 'bb', username: 'bobby' },
      { id: 'c', username: 'Claire' },
    ];
    expect(mentionedIn('Salut @Bob et @claire.', members)).toEqual(['b', 'c']);
    expect(mentionedIn('Salut @bobby', members)).toEqual(['bb']);
    expect(mentionedIn('mail bob@exemple.fr', members)).toEqual([]);
    expect(mentionQuery('Bonjour @cl', 11)).toEqual({ start: 8, query: 'cl' });
    expect(mentionQuery('mail bob@ex', 11)).toBeNull();
    const text = encodeMessage({ text: 'Salut @bob', mentions: ['b'] });
    expect(mentions(text, 'b')).toBe(true);
    expect(mentions(text, 'c')).toBe(false);
    // A plain text naming someone carries no signed mention list.
    expect(mentions('Salut @bob', 'b')).toBe(false);
    expect(plainTextOf(text)).toBe('Salut @bob');
    expect(plainTextOf(encodeReaction(ref('a', '1'), '👍', true))).toBeNull();
    expect(isSilentAction(encodeEdit(ref('a', '1'), 'x'))).toBe(true);
    expect(isSilentAction(text)).toBe(false);
  });

  it('a deleted message its sender signed the place of fills the gap in its sequence (phantom)', () => {
    const first = msg('alice', 'm1', 'un', 1);
    // The place in alice's sequence of the deleted message m2, as its sender signed it.
    const place = {
      chain: { stream: 'alice-s', counter: 2, prevHash: '1'.repeat(64), lastPermanent: 1 },
      hash: '2'.repeat(64),
      permanent: true,
    };
    const deletion = msg('alice', 'd1', encodeDelete(ref('alice', 'm2'), place), 3);
    const derived = derive([first, deletion]);
    expect(derived.phantoms).toEqual([
      {
        key: `deleted:${deletion.entry.key}`,
        senderId: 'alice',
        chain: { stream: 'alice-s', counter: 2, prevHash: '1'.repeat(64), lastPermanent: 1 },
        permanent: true,
        hash: '2'.repeat(64),
      },
    ]);
    // Nothing earlier of that stream held (older page): no phantom, which would look like a gap.
    expect(derive([deletion]).phantoms).toEqual([]);
    // The tombstone shows where the message was: before the next message of that stream.
    const after = msg('alice', 'm3', 'trois', 3);
    const later = msg('alice', 'd2', encodeDelete(ref('alice', 'm2'), place), 4);
    const moved = derive([first, after, later]);
    expect(moved.tombstonesBefore.get(after.entry.key)).toEqual([later.entry.key]);
    expect(moved.hidden.has(later.entry.key)).toBe(true);
    expect(moved.tombstones.has(later.entry.key)).toBe(true);
  });
});
