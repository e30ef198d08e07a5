import {
  KEY_API_PATHS,
  ZAppendMembershipLinkRequest,
  ZMembershipLogQuery,
  type TMembershipLogResponse,
} from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { parseInput } from '../../lib/app-error';
import { ringCaller } from '../../plugins/auth';
import { BODY_LIMITS } from '../../plugins/body-limits';
import { requireRingMember } from '../rings/ring.guard';
import { limitKeyWrites } from '../ring-keys/ring-keys.routes';
import { MembershipLogService } from './membership-log.service';

/** GET and POST /api/rings/keys/log.php: the Ring's signed membership log (issue 24). */
export async function membershipLogRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new MembershipLogService(ctx);
  const preHandler = requireRingMember(ctx);

  app.get(KEY_API_PATHS.log, { preHandler }, async (request): Promise<TMembershipLogResponse> => {
    const { after } = parseInput(ZMembershipLogQuery, request.query);
    return service.links(ringCaller(request), after);
  });

  app.post(
    KEY_API_PATHS.log,
    { preHandler: [preHandler, limitKeyWrites(ctx)], bodyLimit: BODY_LIMITS.form },
    async (request) => {
      const { link } = parseInput(ZAppendMembershipLinkRequest, request.body);
      return { success: true, ...(await service.append(ringCaller(request), link)) };
    },
  );
}
