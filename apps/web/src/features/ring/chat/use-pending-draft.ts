import type { TRingInfo } from '@securering/contract';
import { useEffect } from 'react';
import { SESSION_EXPIRED_EVENT } from '@/lib/api-client';
import { keepPendingDraft, takePendingDraft } from '@/lib/auth/pending-draft';
import type { KeyringStatus } from '../e2ee/keyring-policy';
import type { ConversationFeed } from './conversation-feed';

/**
 * The message being sent when the Ring session expired (issue 28): kept in memory when the 401
 * arrives, and sent once the same member is back in the same conversation with its keys unlocked.
 */
export function usePendingDraft(
  feed: ConversationFeed,
  conversationId: string,
  info: TRingInfo,
  keysState: KeyringStatus,
  send: (text: string) => boolean,
): void {
  const ringId = info.ring.id;
  const memberId = info.user.id;
  useEffect(() => {
    const onExpired = (event: Event) => {
      if ((event as CustomEvent).detail !== 'ring') return;
      const text = feed.unsentText();
      if (text) keepPendingDraft({ ringId, memberId, conversationId, text });
    };
    window.addEventListener(SESSION_EXPIRED_EVENT, onExpired);
    return () => window.removeEventListener(SESSION_EXPIRED_EVENT, onExpired);
  }, [feed, ringId, memberId, conversationId]);

  useEffect(() => {
    if (keysState !== 'active') return;
    const text = takePendingDraft(ringId, memberId, conversationId);
    if (text) send(text);
  }, [keysState, ringId, memberId, conversationId, send]);
}
