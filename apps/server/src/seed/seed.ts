import { randomBytes } from 'node:crypto';
import type { AppContext } from '../app-context';
import { newId } from '../lib/ids';
import { hashPassword } from '../lib/passwords';
import { DEFAULT_TEMPLATES } from '../modules/email/default-templates';
import { EmailTemplateRepository } from '../modules/email/email-template.repository';
import { DEFAULT_PLANS } from './default-plans';

export interface SeedResult {
  /** Set only when the first super admin was created with a generated password. */
  generatedAdminPassword?: string;
  adminCreated: boolean;
  plansCreated: number;
}

/**
 * Idempotent first-start data: every setting key with its French default, the first super admin,
 * the three plans (only into an empty plans table, so deleted plans stay deleted) and the default
 * email templates (missing names only, so edited templates are kept).
 */
export async function seedDatabase(ctx: AppContext): Promise<SeedResult> {
  const now = ctx.clock.now().toISOString();
  await ctx.settings.seedDefaults();

  const result: SeedResult = { adminCreated: false, plansCreated: 0 };
  if ((await ctx.admins.count()) === 0) {
    const password = ctx.config.admin.password ?? randomBytes(12).toString('base64url');
    await ctx.admins.insert({
      id: newId(),
      username: ctx.config.admin.username,
      email: ctx.config.admin.email,
      password_hash: await hashPassword(password),
      role: 'super_admin',
      is_active: 1,
      last_login: null,
      created_at: now,
      updated_at: now,
    });
    result.adminCreated = true;
    if (!ctx.config.admin.password) result.generatedAdminPassword = password;
  }

  const planCount = await ctx.db
    .selectFrom('plans')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  if (Number(planCount.n) === 0) {
    await ctx.db
      .insertInto('plans')
      .values(DEFAULT_PLANS.map((plan) => ({ ...plan, id: newId(), created_at: now, updated_at: now })))
      .execute();
    result.plansCreated = DEFAULT_PLANS.length;
  }

  await new EmailTemplateRepository(ctx.db).insertMissing(
    DEFAULT_TEMPLATES.map((t) => ({
      id: newId(),
      name: t.name,
      subject: t.subject,
      body_html: t.body_html,
      body_text: t.body_text,
      variables: JSON.stringify(t.variables),
      is_active: 1,
      created_at: now,
      updated_at: now,
    })),
  );
  return result;
}
