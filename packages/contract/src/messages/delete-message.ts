import { z } from 'zod';
import { successOf, zBoundedString } from '../common';
import { CHAT_MESSAGES, ROOM_CONVERSATION_ID } from './messages';

/**
 * POST /api/messages/delete.php (issue 29): its sender deletes the ciphertext of one of their own
 * messages, named by the client message id its envelope signed. The readers learn of it from the
 * sender's signed deletion (an ordinary encrypted message sent just before this call): the server's
 * deletion alone shows « Message manquant », never « Message supprimé ».
 */
export const DELETE_MESSAGE_PATH = '/api/messages/delete.php';

export const DELETE_MESSAGE_ERRORS = {
  notFound: 'Message introuvable',
  notOwn: 'Vous ne pouvez supprimer que vos propres messages.',
  failed: 'Impossible de supprimer le message',
} as const;

export const ZDeleteMessageRequest = z.object({
  conversation_id: zBoundedString(80)
    .min(1, CHAT_MESSAGES.conversationNotFound)
    .default(ROOM_CONVERSATION_ID),
  client_message_id: zBoundedString(100).min(1, DELETE_MESSAGE_ERRORS.notFound),
});
export type TDeleteMessageRequest = z.input<typeof ZDeleteMessageRequest>;

/** `messageId`: the server id of the row deleted. */
export const ZDeleteMessageResponse = successOf({ messageId: z.string() });
export type TDeleteMessageResponse = z.infer<typeof ZDeleteMessageResponse>;
