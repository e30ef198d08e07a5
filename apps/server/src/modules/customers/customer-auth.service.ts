import {
  ACCOUNT_MESSAGES,
  type TCustomerLoginResponse,
  type TRegisterResponse,
  type TVerifyEmailResponse,
  type ZCustomerLoginRequest,
  type ZRegisterRequest,
} from '@securering/contract';
import type { z } from 'zod';
import type { AppContext } from '../../app-context';
import { AppError, badRequest, unauthorized } from '../../lib/app-error';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../lib/clock';
import { newId } from '../../lib/ids';
import { loginAccount } from '../../lib/login-throttle';
import { hashPassword, verifyAgainstDummy, verifyPassword } from '../../lib/passwords';
import { hashToken, newToken } from '../../lib/tokens';
import { endCustomerSessions } from '../rings/end-access';
import { adoptVisitorSelection } from '../subscriptions/visitor-selection';
import type { RequestMeta } from '../sessions/session.service';
import { newCustomerRow, toCustomerProfile } from './customer.policy';
import { CustomerRepository, type CustomerRow } from './customer.repository';

export const VERIFICATION_TTL_MS = DAY_MS;
export const RESET_TTL_MS = HOUR_MS;
/** How long after verifying the email the verification link may still log the customer in. */
export const AUTO_LOGIN_WINDOW_MS = 15 * MINUTE_MS;
/** Verification or reset mails per account per hour; more requests answer the same but send nothing. */
export const ACCOUNT_MAILS_PER_HOUR = 5;

type RegisterInput = z.output<typeof ZRegisterRequest>;
type LoginInput = z.output<typeof ZCustomerLoginRequest>;

/**
 * Registration, email verification, login and password reset for customers. Answers that could
 * reveal whether an address has an account (register, resend, forgot) are the same either way.
 */
export class CustomerAuthService {
  private readonly customers: CustomerRepository;

  constructor(private readonly ctx: AppContext) {
    this.customers = new CustomerRepository(ctx.db);
  }

  /** `visitorHash`: the visitor cookie of the request, whose plan choice a new account takes. */
  async register(input: RegisterInput, meta: RequestMeta, visitorHash?: string): Promise<TRegisterResponse> {
    const { ctx } = this;
    const answer: TRegisterResponse = { success: true, message: ACCOUNT_MESSAGES.registered };
    const existing = await this.customers.findByEmail(input.email);
    if (existing) {
      // Same answer and similar timing as a new account; the owner of the address is told by mail.
      await verifyAgainstDummy(input.password);
      if (existing.email_verified === 1) {
        if (await this.withinMailBudget('exists', existing.email)) {
          await ctx.mail.sendTemplate('account_exists', existing.email, {
            first_name: existing.first_name,
            login_url: `${ctx.config.publicUrl}/client`,
            reset_url: `${ctx.config.publicUrl}/forgot-password`,
          });
        }
      } else {
        await this.sendVerification(existing);
      }
      await ctx.systemLog.info('auth', 'Inscription avec une adresse déjà connue', {
        details: { email: input.email },
        ip: meta.ip,
      });
      return answer;
    }

    const now = ctx.clock.now().toISOString();
    const customer = newCustomerRow(input, await hashPassword(input.password), now, {
      email_verified: 0,
      email_verified_at: null,
      is_active: 1,
      status: 'active',
      stripe_customer_id: null,
      paypal_customer_id: null,
      accepted_terms_at: now,
      accepted_privacy_at: now,
    });
    try {
      await this.customers.insert(customer);
    } catch (error) {
      // Two registrations of the same address at once: the loser gets the same neutral answer.
      if (await this.customers.findByEmail(input.email)) return answer;
      throw error;
    }
    await adoptVisitorSelection(ctx, customer.id, visitorHash);
    await this.sendVerification(customer);
    await ctx.systemLog.info('auth', 'Nouveau compte client', {
      userId: customer.id,
      ip: meta.ip,
      userAgent: meta.userAgent,
    });
    return answer;
  }

  async verifyEmail(token: string): Promise<TVerifyEmailResponse> {
    const { ctx } = this;
    const row = await this.customers.findToken('verify_email', hashToken(token));
    const now = ctx.clock.now();
    if (!row || Date.parse(row.expires_at) <= now.getTime())
      throw badRequest(ACCOUNT_MESSAGES.verificationLinkInvalid);
    const customer = await ctx.db.transaction().execute(async (trx) => {
      if (!(await this.customers.consumeToken(row.id, now.toISOString(), trx))) return undefined;
      await this.customers.update(
        row.customer_id,
        { email_verified: 1, email_verified_at: now.toISOString(), updated_at: now.toISOString() },
        trx,
      );
      return this.customers.findById(row.customer_id, trx);
    });
    if (!customer) throw new AppError(409, ACCOUNT_MESSAGES.verificationLinkUsed);
    await ctx.systemLog.info('auth', 'Adresse email vérifiée', { userId: customer.id });
    return {
      success: true,
      message: ACCOUNT_MESSAGES.emailVerified,
      customer: { first_name: customer.first_name, email: customer.email },
    };
  }

  async login(input: LoginInput, meta: RequestMeta): Promise<TCustomerLoginResponse> {
    const { ctx } = this;
    // One budget per person, reserved before the password is checked (shared with Ring logins).
    const account = loginAccount.email(input.email);
    await ctx.loginThrottle.reserve(account);
    const customer =
      input.auto_login === true
        ? await this.checkAutoLogin(input.email, input.verification_token ?? '')
        : await this.checkPassword(input.email, input.password ?? '');
    if (!customer) {
      await ctx.systemLog.warning('auth', 'Échec de connexion client', {
        details: { email: input.email },
        ip: meta.ip,
        userAgent: meta.userAgent,
      });
      throw unauthorized(
        input.auto_login === true ? ACCOUNT_MESSAGES.autoLoginFailed : ACCOUNT_MESSAGES.loginFailed,
      );
    }
    if (customer.is_active !== 1) throw new AppError(403, ACCOUNT_MESSAGES.accountDisabled);
    await ctx.loginThrottle.clear(account);
    const issued = await ctx.sessions.issue('customer', customer.id, meta);
    await ctx.systemLog.info('auth', 'Connexion client', {
      userId: customer.id,
      ip: meta.ip,
      userAgent: meta.userAgent,
    });
    return { success: true, token: issued.token, customer: toCustomerProfile(customer) };
  }

  async resendVerification(email: string): Promise<void> {
    const customer = await this.customers.findByEmail(email);
    if (customer && customer.email_verified === 0 && customer.is_active === 1)
      await this.sendVerification(customer);
  }

  async forgotPassword(email: string, meta: RequestMeta): Promise<void> {
    const { ctx } = this;
    const customer = await this.customers.findByEmail(email);
    if (!customer || customer.is_active !== 1) return;
    if (!(await this.withinMailBudget('reset', customer.email))) return;
    const token = newToken();
    const now = ctx.clock.now();
    await this.customers.insertToken({
      id: newId(),
      customer_id: customer.id,
      purpose: 'reset_password',
      token_hash: hashToken(token),
      expires_at: new Date(now.getTime() + RESET_TTL_MS).toISOString(),
      used_at: null,
      login_used_at: null,
      created_at: now.toISOString(),
    });
    await ctx.mail.sendTemplate('password_reset', customer.email, {
      first_name: customer.first_name,
      reset_url: `${ctx.config.publicUrl}/reset-password?token=${token}`,
    });
    await ctx.systemLog.info('auth', 'Demande de réinitialisation du mot de passe', {
      userId: customer.id,
      ip: meta.ip,
    });
  }

  /** Sets the new password, uses the token up and ends every open session of the customer. */
  async resetPassword(token: string, password: string, meta: RequestMeta): Promise<void> {
    const { ctx } = this;
    const row = await this.customers.findToken('reset_password', hashToken(token));
    const now = ctx.clock.now();
    if (!row || Date.parse(row.expires_at) <= now.getTime())
      throw badRequest(ACCOUNT_MESSAGES.resetLinkInvalid);
    const passwordHash = await hashPassword(password);
    const done = await ctx.db.transaction().execute(async (trx) => {
      if (!(await this.customers.consumeToken(row.id, now.toISOString(), trx))) return false;
      await this.customers.update(
        row.customer_id,
        { password_hash: passwordHash, updated_at: now.toISOString() },
        trx,
      );
      await this.customers.consumeAllTokens(row.customer_id, 'reset_password', now.toISOString(), trx);
      return true;
    });
    if (!done) throw badRequest(ACCOUNT_MESSAGES.resetLinkInvalid);
    // Every session of the person ends: customer, Ring owner sessions, their stream tokens and sockets.
    await endCustomerSessions(ctx, row.customer_id);
    const customer = await this.customers.findById(row.customer_id);
    if (customer) await ctx.loginThrottle.clear(loginAccount.email(customer.email));
    await ctx.systemLog.info('auth', 'Mot de passe client réinitialisé', {
      userId: row.customer_id,
      ip: meta.ip,
    });
  }

  private async checkPassword(email: string, password: string): Promise<CustomerRow | undefined> {
    const customer = await this.customers.findByEmail(email);
    if (!customer) {
      await verifyAgainstDummy(password);
      return undefined;
    }
    return (await verifyPassword(customer.password_hash, password)) ? customer : undefined;
  }

  private async checkAutoLogin(email: string, token: string): Promise<CustomerRow | undefined> {
    const row = await this.customers.findToken('verify_email', hashToken(token));
    if (!row || !row.used_at) return undefined;
    const now = this.ctx.clock.now();
    if (now.getTime() - Date.parse(row.used_at) > AUTO_LOGIN_WINDOW_MS) return undefined;
    const customer = await this.customers.findById(row.customer_id);
    if (!customer || customer.email !== email) return undefined;
    return (await this.customers.consumeTokenLogin(row.id, now.toISOString())) ? customer : undefined;
  }

  private async sendVerification(customer: CustomerRow): Promise<void> {
    const { ctx } = this;
    if (!(await this.withinMailBudget('verify', customer.email))) return;
    const token = newToken();
    const now = ctx.clock.now();
    await this.customers.insertToken({
      id: newId(),
      customer_id: customer.id,
      purpose: 'verify_email',
      token_hash: hashToken(token),
      expires_at: new Date(now.getTime() + VERIFICATION_TTL_MS).toISOString(),
      used_at: null,
      login_used_at: null,
      created_at: now.toISOString(),
    });
    await ctx.mail.sendTemplate('welcome_verification', customer.email, {
      first_name: customer.first_name,
      verification_url: `${ctx.config.publicUrl}/verify-email?token=${token}`,
    });
  }

  private async withinMailBudget(kind: string, email: string): Promise<boolean> {
    const result = await this.ctx.rateLimiter.hit(
      `account-mail:${kind}:${email}`,
      ACCOUNT_MAILS_PER_HOUR,
      HOUR_MS,
    );
    return result.allowed;
  }
}
