import { DELETE_MESSAGE_PATH, ZDeleteMessageRequest } from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { parseInput } from '../../lib/app-error';
import { ringCaller } from '../../plugins/auth';
import { BODY_LIMITS } from '../../plugins/body-limits';
import { requireRingMember } from '../rings/ring.guard';
import { MessageDeletionService } from './message-deletion.service';

/** POST delete.php (issue 29): a sender deletes the ciphertext of their own message. */
export async function messageDeletionRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new MessageDeletionService(ctx);
  app.post(
    DELETE_MESSAGE_PATH,
    { preHandler: requireRingMember(ctx), bodyLimit: BODY_LIMITS.form },
    async (request) => {
      const input = parseInput(ZDeleteMessageRequest, request.body);
      return { success: true, ...(await service.deleteOwn(ringCaller(request), input)) };
    },
  );
}
