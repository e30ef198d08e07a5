import { z } from 'zod';

/** Largest envelope relayed, in characters (a receipt's envelope measured 482 at level standard). */
export const MAX_READING_SIGNAL_CHARS = 2_048;

/**
 * Socket event `reading_signal` (issue 29): a typing indicator or a read receipt, encrypted and
 * signed by the member's browser like a message (an envelope of packages/e2ee whose plaintext says
 * which: the server cannot tell one from the other). Browsers send one only when the Ring's owner
 * switched typing indicators or read receipts on in the signed membership log. The server checks
 * that the caller may read the conversation and relays it, unstored, to the conversation's other
 * members (`reading_signal` with the sender stamped by the server).
 */
export const ZReadingSignal = z.object({
  ringId: z.string().min(1).max(64),
  conversationId: z.string().min(1).max(80),
  /** The envelope (a short plaintext: a few hundred characters at most). */
  content: z.string().min(1).max(MAX_READING_SIGNAL_CHARS),
});
export type TReadingSignal = z.infer<typeof ZReadingSignal>;
export type TReadingSignalAck = { ok: true } | { ok: false; error: string };

/** What the other members receive: the signal as sent, its sender stamped by the server. */
export interface TReadingSignalEvent {
  ringId: string;
  conversationId: string;
  fromUserId: string;
  content: string;
}

/** `reading_signal` events one member may send per minute (typing is sent at most every 3 s). */
export const READING_SIGNALS_PER_MINUTE = 60;
