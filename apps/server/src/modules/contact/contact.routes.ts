import { CONTACT_MESSAGES, ZContactRequest } from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { parseInput } from '../../lib/app-error';
import { newId } from '../../lib/ids';
import { requestMeta } from '../../plugins/auth';
import { BODY_LIMITS } from '../../plugins/body-limits';
import { ipRateLimit } from '../../plugins/rate-limit';
import { ContactRepository } from './contact.repository';

export async function contactRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const messages = new ContactRepository(ctx.db);
  const limit = ipRateLimit(ctx.rateLimiter, 'contact', ctx.config.rateLimits.publicPerMinute);

  // Stored first, then the team is notified at contact_email and the sender gets an acknowledgement.
  app.post('/api/contact.php', { bodyLimit: BODY_LIMITS.contact, preHandler: limit }, async (request) => {
    const input = parseInput(ZContactRequest, request.body);
    const meta = requestMeta(request);
    const id = newId();
    await messages.insert({
      id,
      ...input,
      ip_address: meta.ip,
      created_at: ctx.clock.now().toISOString(),
      handled_at: null,
    });
    const teamAddress = await ctx.settings.getValue('general', 'contact_email');
    if (teamAddress) await ctx.mail.sendTemplate('contact_notification', teamAddress, input);
    await ctx.mail.sendTemplate('contact_acknowledgement', input.email, {
      name: input.name,
      subject: input.subject,
    });
    await ctx.systemLog.info('system', 'Message de contact reçu', {
      ip: meta.ip,
      details: { id, subject: input.subject },
    });
    return { success: true, message: CONTACT_MESSAGES.sent };
  });
}
