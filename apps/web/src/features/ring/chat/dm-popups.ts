import { CHAT_MESSAGES, dmConversationId } from '@securering/contract';
import { createDm } from './chat-api';

/** DM popup size (spec 2 §9). */
export const DM_POPUP_FEATURES = 'popup=yes,width=520,height=760';
/** Session storage entry of the conversation a popup shows (spec 2 §2 Chat screen). */
export const ACTIVE_CONVERSATION_KEY = 'secureRing.activeConversation';
const POPUP_PREFIX = 'securering-chat-';
const CHANNEL = 'securering-chat';

/** The DM popups this room opened, by conversation. */
const popups = new Map<string, Window>();

/** The window name of a conversation's popup (one popup per conversation). */
export function popupName(conversationId: string): string {
  return POPUP_PREFIX + conversationId.replace(/[^A-Za-z0-9-]/g, '_');
}

/** The popup's URL: the room page in chat mode for `convId`. */
export function popupUrl(conversationId: string): string {
  return `/ring?convId=${encodeURIComponent(conversationId)}`;
}

/** True while this room has the conversation's popup open. */
export function isPopupOpen(conversationId: string): boolean {
  const popup = popups.get(conversationId);
  if (popup && !popup.closed) return true;
  popups.delete(conversationId);
  return false;
}

/** The popup already shows this conversation (a same-origin window we can read). */
function shows(win: Window, conversationId: string): boolean {
  try {
    return (
      win.location.pathname === '/ring' &&
      new URLSearchParams(win.location.search).get('convId') === conversationId
    );
  } catch {
    return false;
  }
}

/**
 * Opens (or brings forward) the popup of the private conversation between `selfId` and `peerId`.
 * The window is opened at once, during the click (popup blockers allow only that), under the
 * conversation's own name — so an open popup is reused, even one opened before a reload — then
 * sent to the conversation once create-dm.php has answered; a new window is closed if that fails.
 */
export async function openDmPopup(selfId: string, peerId: string): Promise<string> {
  const expected = dmConversationId(selfId, peerId);
  const win = window.open('', popupName(expected), DM_POPUP_FEATURES);
  if (!win) throw new Error('Autorisez les fenêtres pop-up de ce site pour ouvrir la conversation.');
  const alreadyOpen = shows(win, expected);
  let conversationId: string;
  try {
    conversationId = await createDm(peerId);
  } catch (error) {
    if (!alreadyOpen) win.close();
    throw error instanceof Error ? error : new Error(CHAT_MESSAGES.dmFailed);
  }
  if (!shows(win, conversationId)) win.location.href = popupUrl(conversationId);
  win.focus();
  popups.set(conversationId, win);
  return conversationId;
}

/**
 * The conversation a page shows in chat mode: `convId` from the URL (remembered in session storage
 * as the active conversation), or — in a chat popup reloaded without it — the remembered one.
 */
export function activeConversationOf(search: string, self: Window = window): string | null {
  const fromUrl = new URLSearchParams(search).get('convId');
  try {
    if (fromUrl) {
      self.sessionStorage.setItem(ACTIVE_CONVERSATION_KEY, fromUrl);
      return fromUrl;
    }
    if (self.name.startsWith(POPUP_PREFIX)) return self.sessionStorage.getItem(ACTIVE_CONVERSATION_KEY);
  } catch {
    // Storage disabled: the URL alone decides.
  }
  return fromUrl;
}

/** A popup read its conversation: the room refreshes its unread counts. */
export function announceConversationRead(conversationId: string): void {
  if (typeof BroadcastChannel === 'undefined') return;
  const channel = new BroadcastChannel(CHANNEL);
  channel.postMessage({ type: 'conversation_read', conversationId });
  channel.close();
}

export function onConversationRead(callback: (conversationId: string) => void): () => void {
  if (typeof BroadcastChannel === 'undefined') return () => undefined;
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (event: MessageEvent) => {
    const data = event.data as { type?: unknown; conversationId?: unknown } | null;
    if (data?.type === 'conversation_read' && typeof data.conversationId === 'string')
      callback(data.conversationId);
  };
  return () => channel.close();
}
