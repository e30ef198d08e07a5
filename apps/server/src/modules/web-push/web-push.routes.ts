import {
  WEB_PUSH_API_PATHS,
  WEB_PUSH_MESSAGES,
  ZWebPushSubscribeRequest,
  ZWebPushUnsubscribeRequest,
} from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { parseInput } from '../../lib/app-error';
import { ringCaller } from '../../plugins/auth';
import { BODY_LIMITS } from '../../plugins/body-limits';
import { requireRingMember } from '../rings/ring.guard';
import { WebPushService } from './web-push.service';

/** Web Push (issue 29): the VAPID public key, and a member's subscribe / unsubscribe of one device. */
export async function webPushRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new WebPushService(ctx);
  const preHandler = requireRingMember(ctx);

  // The key pair exists from the first start (a failure here is retried on first use).
  app.addHook('onReady', async () => {
    await service
      .keys()
      .catch((error: unknown) => ctx.logger.error({ err: error }, 'Clés VAPID indisponibles'));
  });

  app.get(WEB_PUSH_API_PATHS.publicKey, { preHandler }, async () => ({
    success: true,
    publicKey: await service.publicKey(),
  }));

  app.post(WEB_PUSH_API_PATHS.subscribe, { preHandler, bodyLimit: BODY_LIMITS.form }, async (request) => {
    const input = parseInput(ZWebPushSubscribeRequest, request.body);
    await service.subscribe(ringCaller(request), input);
    return { success: true, message: WEB_PUSH_MESSAGES.subscribed };
  });

  app.post(WEB_PUSH_API_PATHS.unsubscribe, { preHandler, bodyLimit: BODY_LIMITS.form }, async (request) => {
    const { endpoint } = parseInput(ZWebPushUnsubscribeRequest, request.body);
    await service.unsubscribe(ringCaller(request), endpoint);
    return { success: true, message: WEB_PUSH_MESSAGES.unsubscribed };
  });
}
