import {
  CHAT_API_PATHS,
  ZCreateDmRequest,
  ZGetMessagesQuery,
  ZMarkReadRequest,
  ZSendMessageRequest,
} from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { parseInput } from '../../lib/app-error';
import { ringCaller } from '../../plugins/auth';
import { BODY_LIMITS } from '../../plugins/body-limits';
import { sendUncompressed } from '../../plugins/compression';
import { requireRingMember } from '../rings/ring.guard';
import { MessagesService } from './messages.service';

/** An envelope of 64 KiB of ciphertext is about 88 KB of JSON text: room for it, no more. */
const SEND_BODY_LIMIT = 128 * 1024;

export async function messagesRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new MessagesService(ctx);
  const preHandler = requireRingMember(ctx);

  app.post(CHAT_API_PATHS.send, { preHandler, bodyLimit: SEND_BODY_LIMIT }, async (request, reply) => {
    const input = parseInput(ZSendMessageRequest, request.body);
    return { success: true, ...(await service.send(ringCaller(request), input, reply)) };
  });

  app.get(CHAT_API_PATHS.get, { preHandler }, async (request, reply) => {
    const query = parseInput(ZGetMessagesQuery, request.query);
    const { since } = query;
    if (since === undefined) return { success: true, ...(await service.get(ringCaller(request), query)) };
    // A catch-up page: serialised and written from inside the catch-up gate, as bytes, and nothing
    // of it comes back here (MessagesService.deliverCatchUp); written out (or the client gone), it
    // gives back its place (catch-up-budget.ts).
    sendUncompressed(reply);
    const written = new Promise((resolve) => reply.raw.once('close', resolve));
    await service.deliverCatchUp(
      ringCaller(request),
      { ...query, since },
      (page) => {
        const body = Buffer.from(JSON.stringify({ success: true, ...page }));
        void reply.type('application/json; charset=utf-8').send(body);
      },
      written,
    );
    return reply;
  });

  app.post(CHAT_API_PATHS.createDm, { preHandler, bodyLimit: BODY_LIMITS.form }, async (request) => {
    const { peer_user_id } = parseInput(ZCreateDmRequest, request.body);
    return { success: true, ...(await service.createDm(ringCaller(request), peer_user_id)) };
  });

  app.get(CHAT_API_PATHS.list, { preHandler }, async (request) => ({
    success: true,
    conversations: await service.list(ringCaller(request)),
  }));

  app.post(CHAT_API_PATHS.read, { preHandler, bodyLimit: BODY_LIMITS.form }, async (request) => {
    const input = parseInput(ZMarkReadRequest, request.body);
    return { success: true, ...(await service.markRead(ringCaller(request), input)) };
  });
}
