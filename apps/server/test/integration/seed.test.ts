import { SETTING_DEFINITIONS } from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../build-test-app';
import { seedDatabase } from '../../src/seed/seed';
import { verifyPassword } from '../../src/lib/passwords';

describe('seeding', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  const count = async (table: 'plans' | 'admins' | 'settings' | 'email_templates') =>
    Number(
      (
        await t.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('creates the super admin from the environment, the three plans, every setting and the templates', async () => {
    const admin = await t.ctx.admins.findByUsername('root');
    expect(admin).toMatchObject({ role: 'super_admin', email: 'root@example.com', is_active: 1 });
    expect(await verifyPassword(admin!.password_hash, 'Root-Password-1')).toBe(true);
    expect(admin!.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);

    const plans = await t.ctx.db.selectFrom('plans').selectAll().orderBy('sort_order').execute();
    expect(plans.map((p) => [p.slug, p.name, p.popular])).toEqual([
      ['starter', 'Starter', 0],
      ['professional', 'Professional', 1],
      ['enterprise', 'Enterprise', 0],
    ]);
    expect(JSON.parse(plans[2]!.encryption_levels)).toContain('military');
    expect(plans[2]!.max_users).toBe(-1);

    const expectedSettings = Object.values(SETTING_DEFINITIONS).reduce(
      (n, defs) => n + Object.keys(defs).length,
      0,
    );
    expect(await count('settings')).toBe(expectedSettings);
    const names = (await t.ctx.db.selectFrom('email_templates').select('name').execute()).map((r) => r.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'welcome_verification',
        'password_reset',
        'payment_confirmation',
        'subscription_reminder',
      ]),
    );
  });

  it('is idempotent and keeps edits and deletions', async () => {
    const before = {
      plans: await count('plans'),
      admins: await count('admins'),
      settings: await count('settings'),
      templates: await count('email_templates'),
    };
    await t.ctx.settings.save('general', { site_name: 'Modifié' });
    await seedDatabase(t.ctx);
    await seedDatabase(t.ctx);
    expect({
      plans: await count('plans'),
      admins: await count('admins'),
      settings: await count('settings'),
      templates: await count('email_templates'),
    }).toEqual(before);
    expect(await t.ctx.settings.getValue('general', 'site_name')).toBe('Modifié');
  });

  it('prints nothing to reuse when the admin password came from the environment', () => {
    expect(t.seed.adminCreated).toBe(true);
    expect(t.seed.generatedAdminPassword).toBeUndefined();
  });
});
