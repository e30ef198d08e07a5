import type { AppContext } from '../../app-context';
import { formatDateFr } from '../../lib/format';
import { CustomerRepository } from '../customers/customer.repository';
import type { RingMemberRow, RingRow } from './ring.repository';

/**
 * Issue 27: an invitation code is a bearer credential, so its use is told to the Ring's owner —
 * an email to the customer (« … a rejoint votre Ring … ») that says what to do if nobody was
 * expected. The customer space's « Journal du Ring » lists it too. Never throws (mail is queued).
 */
export async function notifyOwnerOfAcceptedInvitation(
  ctx: AppContext,
  ring: RingRow,
  member: RingMemberRow,
): Promise<void> {
  const customer = await new CustomerRepository(ctx.db).findById(ring.customer_id);
  if (!customer?.email) return;
  await ctx.mail.sendTemplate('ring_invitation_accepted', customer.email, {
    first_name: customer.first_name,
    username: member.username,
    ring_name: ring.name,
    accepted_at: formatDateFr(member.used_at ?? ctx.clock.now().toISOString()),
    dashboard_url: `${ctx.config.publicUrl}/client`,
  });
}
