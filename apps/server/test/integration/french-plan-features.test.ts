import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as frenchPlanFeatures from '../../src/db/migrations/20261130-090-french-plan-features';
import { buildTestApp, type TestApp } from '../build-test-app';

/** Issue 28 (« Words »): the plans' feature lines read in French, old lists included. */
describe('French plan feature lines', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const features = async (slug: string): Promise<string[]> =>
    JSON.parse(
      (await t.ctx.db.selectFrom('plans').select('features').where('slug', '=', slug).executeTakeFirstOrThrow())
        .features,
    ) as string[];
  const setFeatures = (slug: string, value: string) =>
    t.ctx.db.updateTable('plans').set({ features: value }).where('slug', '=', slug).execute();
  const migrationDb = () => t.ctx.db as unknown as Kysely<unknown>;

  it('seeds the enterprise plan with « Journal d’audit » and « Tableau de bord analytique »', async () => {
    const seeded = await features('enterprise');
    expect(seeded).toContain('Journal d’audit');
    expect(seeded).toContain('Tableau de bord analytique');
    expect(seeded.join('\n')).not.toMatch(/Audit logs|Dashboard analytics/);
  });

  it('the migration renames the two English lines in place and leaves every other line alone', async () => {
    const before = await features('enterprise');
    await setFeatures(
      'enterprise',
      JSON.stringify(['Chiffrement Militaire', 'Audit logs', 'Texte de l’administrateur', 'Dashboard analytics']),
    );
    await frenchPlanFeatures.up(migrationDb());
    expect(await features('enterprise')).toEqual([
      'Chiffrement Militaire',
      'Journal d’audit',
      'Texte de l’administrateur',
      'Tableau de bord analytique',
    ]);
    // A line that only mentions the words is an administrator's text: kept.
    await setFeatures('enterprise', JSON.stringify(['Audit logs 24/7']));
    await frenchPlanFeatures.up(migrationDb());
    expect(await features('enterprise')).toEqual(['Audit logs 24/7']);
    // Unreadable lists are left as they are, not lost.
    await setFeatures('enterprise', 'pas du JSON');
    await frenchPlanFeatures.up(migrationDb());
    const raw = await t.ctx.db
      .selectFrom('plans')
      .select('features')
      .where('slug', '=', 'enterprise')
      .executeTakeFirstOrThrow();
    expect(raw.features).toBe('pas du JSON');
    await setFeatures('enterprise', JSON.stringify(before));
  });

  it('the back office’s switches write the French lines', async () => {
    const { togglePlanFeature } = await import('@securering/contract');
    expect(togglePlanFeature([], 'audit', true)).toEqual(['Journal d’audit']);
  });
});
