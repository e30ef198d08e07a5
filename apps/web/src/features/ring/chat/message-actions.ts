import type { ChainedMessage, MessageChain } from '@securering/e2ee';
import { attachmentSummary } from './attachment-prefix';
import { entryKey, type ChatEntry } from './chat-policy';
import type { ReadState } from './conversation-feed';

/**
 * Message actions (issue 29): replies, reactions, edits, deletions and @mentions. Each is an
 * ordinary encrypted, signed message of the conversation whose plaintext starts with a reserved
 * prefix (a control character a person cannot type: the feed strips it from typed text) and a
 * small JSON body. A target is named by its signed (senderId, clientMessageId), never by a server
 * id. The rules below are pure: what a reader shows follows from the messages it verified alone.
 */

export const MESSAGE_PREFIX = '\u0001msg\u0001';
export const REACT_PREFIX = '\u0001react\u0001';
export const EDIT_PREFIX = '\u0001edit\u0001';
export const DELETE_PREFIX = '\u0001delete\u0001';

export const DELETED_MESSAGE = 'Message supprimé';
export const UNAVAILABLE_MESSAGE = 'Message indisponible';
export const EDITED_MARK = 'modifié';

/** A message as its sender signed it: sender member id and client message id. */
export interface MessageRef {
  s: string;
  m: string;
}

/** A deleted message's place in its sender's signed sequence (so readers see no gap). */
export interface DeletedPlace {
  chain: MessageChain;
  hash: string;
  permanent: boolean;
}

export type ActionBody =
  | { kind: 'msg'; text: string; replyTo?: MessageRef; mentions: string[] }
  | { kind: 'react'; to: MessageRef; emoji: string; on: boolean }
  | { kind: 'edit'; to: MessageRef; text: string; mentions: string[] }
  | { kind: 'delete'; to: MessageRef; place?: DeletedPlace };

const MAX_ID = 100;
const MAX_MENTIONS = 50;
const HEX64 = /^[0-9a-f]{64}$/;
/** One emoji (with its modifiers and joiners), nothing else. */
const EMOJI =
  /^(?:\p{Extended_Pictographic}|\p{Regional_Indicator})(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|\p{Emoji_Modifier}|\u200d|\ufe0f|\u20e3)*$/u;

const isId = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= MAX_ID;

/** Leading reserved control characters dropped: a text never passes for an action or a call entry. */
export function clean(text: string): string {
  let start = 0;
  while (text.charCodeAt(start) === 1) start++;
  return text.slice(start);
}

function refOf(value: unknown): MessageRef | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { s, m } = value as Record<string, unknown>;
  return isId(s) && isId(m) ? { s, m } : undefined;
}

function mentionsOf(value: unknown): string[] | undefined {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > MAX_MENTIONS || !value.every(isId)) return undefined;
  return [...new Set(value)];
}

function placeOf(value: unknown): DeletedPlace | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const c = v.chain as Record<string, unknown> | undefined;
  const count = (n: unknown, min: number) => typeof n === 'number' && Number.isInteger(n) && n >= min;
  if (
    typeof c !== 'object' ||
    c === null ||
    !isId(c.stream) ||
    !count(c.counter, 1) ||
    typeof c.prevHash !== 'string' ||
    !HEX64.test(c.prevHash) ||
    !count(c.lastPermanent, 0) ||
    typeof v.hash !== 'string' ||
    !HEX64.test(v.hash) ||
    typeof v.permanent !== 'boolean'
  )
    return undefined;
  return {
    chain: {
      stream: c.stream,
      counter: c.counter as number,
      prevHash: c.prevHash,
      lastPermanent: c.lastPermanent as number,
    },
    hash: v.hash,
    permanent: v.permanent,
  };
}

/** The action a decrypted text holds, or null for plain text (or a malformed action). */
export function parseAction(text: string): ActionBody | null {
  if (!text.startsWith('\u0001')) return null;
  const prefix = [MESSAGE_PREFIX, REACT_PREFIX, EDIT_PREFIX, DELETE_PREFIX].find((p) => text.startsWith(p));
  if (!prefix) return null;
  let body: unknown;
  try {
    body = JSON.parse(text.slice(prefix.length));
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null) return null;
  const b = body as Record<string, unknown>;
  if (b.v !== 1) return null;
  if (prefix === MESSAGE_PREFIX) {
    const mentions = mentionsOf(b.mentions);
    const replyTo = b.replyTo === undefined ? undefined : refOf(b.replyTo);
    if (typeof b.text !== 'string' || !mentions || (b.replyTo !== undefined && !replyTo)) return null;
    return { kind: 'msg', text: clean(b.text), mentions, ...(replyTo ? { replyTo } : {}) };
  }
  const to = refOf(b.to);
  if (!to) return null;
  if (prefix === REACT_PREFIX) {
    if (
      typeof b.emoji !== 'string' ||
      b.emoji.length > 32 ||
      !EMOJI.test(b.emoji) ||
      typeof b.on !== 'boolean'
    )
      return null;
    return { kind: 'react', to, emoji: b.emoji, on: b.on };
  }
  if (prefix === EDIT_PREFIX) {
    const mentions = mentionsOf(b.mentions);
    if (typeof b.text !== 'string' || !mentions) return null;
    return { kind: 'edit', to, text: clean(b.text), mentions };
  }
  if (b.place === undefined) return { kind: 'delete', to };
  const place = placeOf(b.place);
  return place ? { kind: 'delete', to, place } : null;
}

/** One reaction under a message: the emoji, how many members chose it, and whether the reader did. */
export interface ReactionCount {
  emoji: string;
  count: number;
  mine: boolean;
  memberIds: string[];
}

/** What the reader shows of a message after the actions it holds. */
export interface DerivedActions {
  /** Action entries (reactions, edits, deletions) that show as no bubble of their own. */
  hidden: ReadonlySet<string>;
  /** Shown text of plain and structured messages (edited or not), by entry key. */
  texts: ReadonlyMap<string, string>;
  /** Mentioned member ids of a message (its latest edit's), by entry key. */
  mentions: ReadonlyMap<string, readonly string[]>;
  /** Entries edited by their own sender. */
  edited: ReadonlySet<string>;
  /** Entries deleted by their own sender's signed deletion. */
  deleted: ReadonlySet<string>;
  /** Deletions whose target this reader no longer holds: shown as « Message supprimé ». */
  tombstones: ReadonlySet<string>;
  /**
   * Tombstones shown where the deleted message was (before the next message of its sender's
   * stream, by that message's key) rather than at the deletion's own place.
   */
  tombstonesBefore: ReadonlyMap<string, readonly string[]>;
  /** The message a reply quotes, by the reply's entry key (target entry key). */
  replies: ReadonlyMap<string, string>;
  reactions: ReadonlyMap<string, readonly ReactionCount[]>;
  /**
   * The signed places of deleted messages this reader no longer holds, for the sequence check:
   * a permanent message its own sender deleted is no « Message manquant ».
   */
  phantoms: readonly ChainedMessage[];
}

interface Ordered {
  index: number;
  sentAt: string;
  chain: MessageChain | undefined;
}

/** Sender order: the signed counter within one sending browser, else the signed send time. */
function compareOrder(a: Ordered, b: Ordered): number {
  if (a.chain && b.chain && a.chain.stream === b.chain.stream) return a.chain.counter - b.chain.counter;
  if (a.sentAt !== b.sentAt) return a.sentAt < b.sentAt ? -1 : 1;
  return a.index - b.index;
}

/**
 * Applies the actions among `entries` (timeline order; `reads` their verified texts): only a
 * message's own sender may edit or delete it (another member's or the server's attempt is ignored),
 * the latest edit in its sender's order wins, a deletion wins over any edit, each member's latest
 * reaction per emoji counts (on or off), a reply names its target (quoted from the reader's copy).
 */
export function deriveActions(
  entries: readonly ChatEntry[],
  reads: ReadonlyMap<string, ReadState>,
  me: string,
): DerivedActions {
  const hidden = new Set<string>();
  const texts = new Map<string, string>();
  const mentions = new Map<string, readonly string[]>();
  const replies = new Map<string, string>();
  const deleted = new Set<string>();
  const tombstones = new Set<string>();
  const held = new Map<string, ChatEntry>();
  const edits = new Map<string, { order: Ordered; text: string; mentions: string[] }>();
  const votes = new Map<
    string,
    { order: Ordered; target: string; emoji: string; member: string; on: boolean }
  >();
  const deletions: Array<{ key: string; target: string; sender: string; place?: DeletedPlace }> = [];

  entries.forEach((entry, index) => {
    const read = reads.get(entry.key);
    if (read?.state !== 'ok') return;
    held.set(entry.key, entry);
    const order: Ordered = {
      index,
      sentAt: read.signed?.sentAt ?? entry.timestamp,
      chain: read.signed?.chain,
    };
    const action = parseAction(read.text);
    if (!action) {
      texts.set(entry.key, read.text);
      return;
    }
    if (action.kind === 'msg') {
      texts.set(entry.key, action.text);
      if (action.mentions.length > 0) mentions.set(entry.key, action.mentions);
      if (action.replyTo) replies.set(entry.key, entryKey(action.replyTo.s, action.replyTo.m));
      return;
    }
    hidden.add(entry.key);
    const target = entryKey(action.to.s, action.to.m);
    // Only the sender of a message edits or deletes it: the entry's sender is the verified signer.
    if (action.kind === 'edit') {
      if (action.to.s !== entry.senderId) return;
      const current = edits.get(target);
      if (!current || compareOrder(current.order, order) < 0)
        edits.set(target, { order, text: action.text, mentions: action.mentions });
    } else if (action.kind === 'delete') {
      if (action.to.s !== entry.senderId) return;
      deletions.push({
        key: entry.key,
        target,
        sender: entry.senderId,
        ...(action.place ? { place: action.place } : {}),
      });
    } else {
      const id = `${target}\u0000${entry.senderId}\u0000${action.emoji}`;
      const current = votes.get(id);
      if (!current || compareOrder(current.order, order) < 0)
        votes.set(id, { order, target, emoji: action.emoji, member: entry.senderId, on: action.on });
    }
  });

  const phantoms: ChainedMessage[] = [];
  const tombstonesBefore = new Map<string, string[]>();
  for (const deletion of deletions) {
    if (deleted.has(deletion.target)) {
      // A second deletion of the same message shows nothing more.
      continue;
    }
    deleted.add(deletion.target);
    if (held.has(deletion.target) || entries.some((e) => e.key === deletion.target)) continue;
    tombstones.add(deletion.key);
    hidden.delete(deletion.key);
    const place = deletion.place;
    if (!place) continue;
    // Where it was: before the next message of the same stream this reader holds.
    let next: { key: string; counter: number } | undefined;
    for (const entry of entries) {
      const read = reads.get(entry.key);
      const chain = read?.state === 'ok' ? read.signed?.chain : undefined;
      if (
        entry.senderId === deletion.sender &&
        chain?.stream === place.chain.stream &&
        chain.counter > place.chain.counter &&
        (!next || chain.counter < next.counter)
      )
        next = { key: entry.key, counter: chain.counter };
    }
    if (next && next.key !== deletion.key) {
      hidden.add(deletion.key);
      tombstonesBefore.set(next.key, [...(tombstonesBefore.get(next.key) ?? []), deletion.key]);
    }
    // Only within what this reader holds of that stream (an older place would look like a gap).
    const earlier = entries.some((entry) => {
      const read = reads.get(entry.key);
      const chain = read?.state === 'ok' ? read.signed?.chain : undefined;
      return (
        entry.senderId === deletion.sender &&
        chain?.stream === place.chain.stream &&
        chain.counter < place.chain.counter
      );
    });
    if (earlier)
      phantoms.push({
        key: `deleted:${deletion.key}`,
        senderId: deletion.sender,
        chain: place.chain,
        permanent: place.permanent,
        hash: place.hash,
      });
  }

  const edited = new Set<string>();
  for (const [target, edit] of edits) {
    if (deleted.has(target) || !texts.has(target)) continue;
    edited.add(target);
    texts.set(target, edit.text);
    if (edit.mentions.length > 0) mentions.set(target, edit.mentions);
    else mentions.delete(target);
  }
  for (const target of deleted) {
    texts.delete(target);
    mentions.delete(target);
  }

  const reactions = new Map<string, ReactionCount[]>();
  for (const vote of votes.values()) {
    if (!vote.on || deleted.has(vote.target)) continue;
    const list = reactions.get(vote.target) ?? [];
    let item = list.find((r) => r.emoji === vote.emoji);
    if (!item) {
      item = { emoji: vote.emoji, count: 0, mine: false, memberIds: [] };
      list.push(item);
    }
    item.count += 1;
    item.memberIds.push(vote.member);
    if (vote.member === me) item.mine = true;
    reactions.set(vote.target, list);
  }

  return {
    hidden,
    texts,
    mentions,
    edited,
    deleted,
    tombstones,
    tombstonesBefore,
    replies,
    reactions,
    phantoms,
  };
}

/** The line a reply quotes: the target as this reader decrypted it, or why it cannot. */
export function quoteOf(derived: DerivedActions, target: string): { text: string; available: boolean } {
  if (derived.deleted.has(target)) return { text: DELETED_MESSAGE, available: false };
  const text = derived.texts.get(target);
  if (text === undefined) return { text: UNAVAILABLE_MESSAGE, available: false };
  // An attachment or a call entry is quoted by its line, never its body.
  if (text.startsWith('\u0001')) return { text: attachmentSummary(text) ?? 'Message', available: true };
  return { text, available: true };
}

/** What a notice or a preview shows of a decrypted text (null: an action that shows nothing). */
export function plainTextOf(text: string): string | null {
  const action = parseAction(text);
  if (!action) return text;
  if (action.kind === 'msg' || action.kind === 'edit') return action.text;
  if (action.kind === 'delete') return DELETED_MESSAGE;
  return null;
}

/** Whether a decrypted text is a new message naming `memberId` (a mention: notified even when muted). */
export function mentions(text: string, memberId: string): boolean {
  const action = parseAction(text);
  return action?.kind === 'msg' && action.mentions.includes(memberId);
}

/** Whether a decrypted text is an action that raises no notice (reaction, edit, deletion). */
export function isSilentAction(text: string): boolean {
  const action = parseAction(text);
  return action !== null && action.kind !== 'msg';
}
