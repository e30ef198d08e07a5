import {
  EMAIL_MESSAGES,
  ZCreateEmailTemplateRequest,
  ZEmailTestRequest,
  ZResetEmailTemplateRequest,
  ZUpdateEmailTemplateRequest,
  type PermissionType,
} from '@securering/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context';
import { badRequest, parseInput } from '../../lib/app-error';
import { adminCaller, requestMeta } from '../../plugins/auth';
import { requireAdmin } from '../admins/admin.guard';
import { AdminEmailsService } from './admin-emails.service';

/** The action a POST names; absent (or empty) means "create a template". */
const postAction = (request: FastifyRequest): unknown =>
  (request.body as { action?: unknown } | null | undefined)?.action;

const isUnknownAction = (action: unknown): boolean =>
  action !== undefined && action !== null && action !== '' && action !== 'reset_default';

/**
 * The right a POST needs: a reset needs edit, a new template create. An unknown action changes
 * nothing; it is still only answered to admins of the module (view).
 */
function postPermission(request: FastifyRequest): PermissionType {
  const action = postAction(request);
  if (isUnknownAction(action)) return 'view';
  return action === 'reset_default' ? 'edit' : 'create';
}

/** Email templates and the SMTP test email (spec 3 §2.5, §7 Email). */
export async function adminEmailsRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new AdminEmailsService(ctx);
  const PATH = '/api/admin/email-templates.php';

  app.get(PATH, { preHandler: requireAdmin(ctx, 'email_management', 'view') }, async () => {
    const data = await service.list();
    return { success: true, data, meta: { total: data.length } };
  });

  app.put(PATH, { preHandler: requireAdmin(ctx, 'email_management', 'edit') }, async (request) => {
    const input = parseInput(ZUpdateEmailTemplateRequest, request.body);
    const data = await service.update(adminCaller(request).admin, input, requestMeta(request));
    return { success: true, data, message: EMAIL_MESSAGES.saved };
  });

  // POST carries either a reset (edit right) or a new template (create right): the token is
  // checked first, then the right the action needs, then the input.
  app.post(PATH, { preHandler: requireAdmin(ctx, 'email_management', postPermission) }, async (request) => {
    const action = postAction(request);
    if (isUnknownAction(action)) throw badRequest(EMAIL_MESSAGES.unknownAction);
    const reset = action === 'reset_default';
    const { admin } = adminCaller(request);
    const meta = requestMeta(request);
    if (reset) {
      const { name } = parseInput(ZResetEmailTemplateRequest, request.body);
      const { message, template } = await service.resetDefault(admin, name, meta);
      return { success: true, message, data: template };
    }
    const data = await service.create(admin, parseInput(ZCreateEmailTemplateRequest, request.body), meta);
    return { success: true, data, message: EMAIL_MESSAGES.created };
  });

  app.post(
    '/api/admin/email-test.php',
    { preHandler: requireAdmin(ctx, 'email_management', 'edit') },
    async (request) => {
      const input = parseInput(ZEmailTestRequest, request.body);
      const message = await service.sendTest(adminCaller(request).admin, input, requestMeta(request));
      return { success: true, message };
    },
  );
}
