import { CHAT_MESSAGES } from '@securering/contract';
import { AlertTriangle, KeyRound } from 'lucide-react';
import { useRingKeys } from '../e2ee/use-ring-keys';

/** What a reader sees of a message of a member whose new keys no one confirmed yet (issue 28). */
export const pendingKeyText = (name: string) => `En attente de confirmation de la nouvelle clé de ${name}`;

/**
 * The label of a message that did not verify: pending confirmation while its sender has a key
 * change the log does not confirm yet, else the forgery label.
 */
export function unverifiableLabel(
  keyChanges: ReadonlyArray<{ memberId: string; pending: boolean }>,
  senderId: string,
  senderName: string,
): { pending: boolean; text: string } {
  return keyChanges.some((change) => change.pending && change.memberId === senderId)
    ? { pending: true, text: pendingKeyText(senderName) }
    : { pending: false, text: CHAT_MESSAGES.unverifiable };
}

/**
 * A message that does not verify against the keys the signed membership log gives its sender.
 * While that sender's published keys differ from the log's (a reset no owner or admin confirmed
 * yet: the timeline shows « La clé de … a changé — comparer »), it reads as pending confirmation,
 * not as a forgery; its text stays hidden all the same, and the feed checks it again once the log
 * confirms the key (no reload). Otherwise: « Message non vérifiable ».
 */
export function UnverifiableBody({ senderId, senderName }: { senderId: string; senderName: string }) {
  const label = unverifiableLabel(useRingKeys().keyChanges, senderId, senderName);
  return label.pending ? (
    <span className="inline-flex items-center gap-1 italic opacity-80" data-testid="pending-key-message">
      <KeyRound className="size-3.5" aria-hidden /> {label.text}
    </span>
  ) : (
    <span className="inline-flex items-center gap-1 italic">
      <AlertTriangle className="size-3.5" aria-hidden /> {label.text}
    </span>
  );
}
