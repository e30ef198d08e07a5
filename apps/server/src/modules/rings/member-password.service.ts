import { MEMBER_ACCESS_MESSAGES, RING_RESET_PASSWORD_PARAM } from '@securering/contract';
import type { AppContext } from '../../app-context';
import { badRequest } from '../../lib/app-error';
import { HOUR_MS } from '../../lib/clock';
import { newId } from '../../lib/ids';
import { loginAccount } from '../../lib/login-throttle';
import { hashPassword } from '../../lib/passwords';
import { hashToken, newToken } from '../../lib/tokens';
import type { RequestMeta } from '../sessions/session.service';
import { endMemberAccess } from './end-access';
import { MemberTokenRepository } from './member-token.repository';
import { RingRepository } from './ring.repository';

/** How long a member's reset link works (as a customer's). */
export const MEMBER_RESET_TTL_MS = HOUR_MS;
/** Reset mails per address per hour; more requests answer the same but send nothing. */
export const MEMBER_RESET_MAILS_PER_HOUR = 5;

/**
 * « Mot de passe oublié » for Ring members (issue 28), with the customers' rules: the answer never
 * says whether the address is known, only the token's hash is stored, the link expires after an
 * hour and works once, and a reset ends the member's open sessions. The member's E2EE keys are
 * untouched: they are sealed under its passphrase, which the account password never was.
 */
export class MemberPasswordService {
  private readonly tokens: MemberTokenRepository;

  constructor(private readonly ctx: AppContext) {
    this.tokens = new MemberTokenRepository(ctx.db);
  }

  /** Runs after the neutral answer is sent: one link per Ring where the address is an active member. */
  async forgotPassword(email: string, meta: RequestMeta): Promise<void> {
    const { ctx } = this;
    const members = await this.tokens.findResettableMembersByEmail(email);
    if (members.length === 0) return;
    const budget = await ctx.rateLimiter.hit(
      `member-reset-mail:${email}`,
      MEMBER_RESET_MAILS_PER_HOUR,
      HOUR_MS,
    );
    if (!budget.allowed) return;
    const now = ctx.clock.now();
    for (const member of members) {
      const token = newToken();
      await this.tokens.insert({
        id: newId(),
        member_id: member.id,
        purpose: 'reset_password',
        token_hash: hashToken(token),
        expires_at: new Date(now.getTime() + MEMBER_RESET_TTL_MS).toISOString(),
        used_at: null,
        created_at: now.toISOString(),
      });
      await ctx.mail.sendTemplate('ring_password_reset', member.email, {
        username: member.username,
        ring_name: member.ring_name,
        reset_url: `${ctx.config.publicUrl}/ring-access?${RING_RESET_PASSWORD_PARAM}=${token}`,
      });
      await ctx.systemLog.info('auth', 'Demande de réinitialisation du mot de passe d’un membre', {
        userId: member.id,
        ip: meta.ip,
      });
    }
  }

  /** Sets the new password, uses the link up, and ends the member's sessions, tokens and sockets. */
  async resetPassword(token: string, password: string, meta: RequestMeta): Promise<void> {
    const { ctx } = this;
    const row = await this.tokens.find(hashToken(token));
    const now = ctx.clock.now();
    if (!row || row.used_at !== null || Date.parse(row.expires_at) <= now.getTime())
      throw badRequest(MEMBER_ACCESS_MESSAGES.resetLinkInvalid);
    const passwordHash = await hashPassword(password);
    if (!(await this.tokens.resetPassword(row, passwordHash, now.toISOString())))
      throw badRequest(MEMBER_ACCESS_MESSAGES.resetLinkInvalid);
    await endMemberAccess(ctx, row.member_id);
    const email = (await new RingRepository(ctx.db).findMemberById(row.member_id))?.email;
    if (email) await ctx.loginThrottle.clear(loginAccount.email(email));
    await ctx.systemLog.info('auth', 'Mot de passe de membre réinitialisé', {
      userId: row.member_id,
      ip: meta.ip,
    });
  }
}
