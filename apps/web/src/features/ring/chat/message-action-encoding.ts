import { DELETE_MESSAGE_ERRORS, DELETE_MESSAGE_PATH, ZDeleteMessageResponse } from '@securering/contract';
import { messageHash, parseEnvelope } from '@securering/e2ee';
import { apiRequest } from '@/lib/api-client';
import type { ChatEntry } from './chat-policy';
import {
  DELETE_PREFIX,
  EDIT_PREFIX,
  MESSAGE_PREFIX,
  REACT_PREFIX,
  clean,
  type DeletedPlace,
  type MessageRef,
} from './message-actions';

/**
 * Writing message actions (issue 29): the plaintexts of replies, mentions, reactions, edits and
 * deletions, and the « @ » helpers of the composer. Loaded when a member first acts (the room's
 * first paint only reads actions: message-actions.ts).
 */

/** The signed place of an own message's envelope, carried by its deletion (undefined: legacy v1). */
export async function deletedPlaceOf(content: string | null): Promise<DeletedPlace | undefined> {
  if (!content) return undefined;
  try {
    const envelope = parseEnvelope(content);
    const chain = envelope.header.chain;
    if (!chain) return undefined;
    return {
      chain,
      hash: await messageHash(envelope),
      permanent: envelope.header.ephemeralSec === undefined,
    };
  } catch {
    return undefined;
  }
}

/** The plaintext of a message with a reply or mentions; plain text when it has neither. */
export function encodeMessage(input: { text: string; replyTo?: MessageRef; mentions?: string[] }): string {
  const text = clean(input.text);
  const mentions = [...new Set(input.mentions ?? [])];
  if (!input.replyTo && mentions.length === 0) return text;
  return (
    MESSAGE_PREFIX +
    JSON.stringify({
      v: 1,
      text,
      ...(input.replyTo ? { replyTo: { s: input.replyTo.s, m: input.replyTo.m } } : {}),
      ...(mentions.length > 0 ? { mentions } : {}),
    })
  );
}

export function encodeReaction(to: MessageRef, emoji: string, on: boolean): string {
  return REACT_PREFIX + JSON.stringify({ v: 1, to: { s: to.s, m: to.m }, emoji, on });
}

export function encodeEdit(to: MessageRef, text: string, mentions: string[] = []): string {
  const list = [...new Set(mentions)];
  return (
    EDIT_PREFIX +
    JSON.stringify({
      v: 1,
      to: { s: to.s, m: to.m },
      text: clean(text),
      ...(list.length ? { mentions: list } : {}),
    })
  );
}

export function encodeDelete(to: MessageRef, place?: DeletedPlace): string {
  return DELETE_PREFIX + JSON.stringify({ v: 1, to: { s: to.s, m: to.m }, ...(place ? { place } : {}) });
}

/** Mentioned member ids: those whose « @username » the text holds (case-insensitive, whole name). */
export function mentionedIn(
  text: string,
  members: ReadonlyArray<{ id: string; username: string }>,
): string[] {
  const lower = text.toLocaleLowerCase('fr');
  return members
    .filter((member) => {
      const needle = `@${member.username.toLocaleLowerCase('fr')}`;
      let at = lower.indexOf(needle);
      while (at !== -1) {
        // A whole name: not inside a word before, not followed by more of a longer name.
        const before = at > 0 ? lower.charAt(at - 1) : ' ';
        const after = lower.slice(at + needle.length, at + needle.length + 2);
        if (!/[\p{L}\p{N}_]/u.test(before) && !/^(?:[\p{L}\p{N}_]|[.-][\p{L}\p{N}_])/u.test(after))
          return true;
        at = lower.indexOf(needle, at + 1);
      }
      return false;
    })
    .map((member) => member.id);
}

/** The « @quer » being typed just before the caret, if any (what the autocomplete completes). */
export function mentionQuery(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const match = /(^|\s)@([\p{L}\p{N}_.-]{0,30})$/u.exec(before);
  if (!match) return null;
  return { start: caret - match[2]!.length - 1, query: match[2]! };
}

/**
 * What the composer sends: an edit of `draft`'s message, or a message (a reply to it, if any) with
 * the members named by « @name » in its mention list.
 */
export function composedText(
  text: string,
  draft: { mode: 'reply' | 'edit'; entry: ChatEntry } | null,
  members: ReadonlyArray<{ id: string; username: string }>,
): string {
  const mentions = mentionedIn(text, members);
  const ref = draft ? { s: draft.entry.senderId, m: draft.entry.clientMessageId } : undefined;
  if (draft?.mode === 'edit' && ref) return encodeEdit(ref, text, mentions);
  return encodeMessage({ text, mentions, ...(ref ? { replyTo: ref } : {}) });
}

/**
 * Deletes one's own message: the signed deletion first (readers go by it, and it carries the
 * message's signed place so that they see no gap), then the server drops the ciphertext.
 * Resolves with a French error, or null.
 */
export async function deleteOwnMessage(
  entry: ChatEntry,
  conversationId: string,
  sendAction: (text: string) => Promise<boolean>,
): Promise<string | null> {
  const place = await deletedPlaceOf(entry.content);
  if (!(await sendAction(encodeDelete({ s: entry.senderId, m: entry.clientMessageId }, place))))
    return DELETE_MESSAGE_ERRORS.failed;
  try {
    await apiRequest(DELETE_MESSAGE_PATH, {
      method: 'POST',
      auth: 'ring',
      body: { conversation_id: conversationId, client_message_id: entry.clientMessageId },
      schema: ZDeleteMessageResponse,
      fallbackError: DELETE_MESSAGE_ERRORS.failed,
    });
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : DELETE_MESSAGE_ERRORS.failed;
  }
}
