import { z } from 'zod';
import { ZSendMessageAckOk, ZSendMessageRequest } from './messages';

/**
 * Socket event `send_message` (issue 30): send.php's call over the socket that already joined the
 * Ring's room, with an acknowledgement instead of an HTTP answer. Same body, same checks, same
 * refusals (`code`, `currentEpoch`, `ephemeralSec`, `retryAfterSec` as send.php's 409 and 429
 * carry them; `rotationSoon` as send.php's answer); `ringId` must be the socket's Ring. send.php stays for clients without a socket.
 */
export const ZSendMessageEvent = ZSendMessageRequest.extend({
  ringId: z.string().min(1).max(64),
});
export type TSendMessageEvent = z.input<typeof ZSendMessageEvent>;

export const ZSendMessageAck = z.discriminatedUnion('ok', [
  ZSendMessageAckOk,
  z.object({
    ok: z.literal(false),
    error: z.string(),
    /** The HTTP status send.php would have answered (409, 429…), when the service refused it. */
    status: z.number().int().optional(),
    code: z.string().optional(),
    currentEpoch: z.number().int().optional(),
    ephemeralSec: z.number().int().nullable().optional(),
    retryAfterSec: z.number().optional(),
  }),
]);
export type TSendMessageAck = z.infer<typeof ZSendMessageAck>;
