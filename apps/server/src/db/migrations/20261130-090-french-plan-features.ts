import type { Kysely } from 'kysely';

/**
 * Two feature lines of the back office's editor were English (« Audit logs », « Dashboard
 * analytics »); they read in French now (issue 28). Every plan's list gets the French line in their
 * place, wherever it sits; any other line, edited or not, stays as it is. The lines are frozen here.
 */
const RENAMED: ReadonlyArray<readonly [english: string, french: string]> = [
  ['Audit logs', 'Journal d’audit'],
  ['Dashboard analytics', 'Tableau de bord analytique'],
];

interface PlansOnly {
  plans: { id: string; features: string; updated_at: string };
}

function parseLines(features: string): string[] | null {
  try {
    const value: unknown = JSON.parse(features);
    return Array.isArray(value) && value.every((line) => typeof line === 'string') ? value : null;
  } catch {
    return null;
  }
}

async function rename(db: Kysely<unknown>, pairs: ReadonlyArray<readonly [string, string]>): Promise<void> {
  const k = db as Kysely<PlansOnly>;
  const plans = await k.selectFrom('plans').select(['id', 'features']).execute();
  const nowIso = new Date().toISOString();
  for (const plan of plans) {
    const lines = parseLines(plan.features);
    if (!lines) continue;
    const renamed = lines.map((line) => pairs.find(([from]) => from === line)?.[1] ?? line);
    if (renamed.every((line, i) => line === lines[i])) continue;
    await k
      .updateTable('plans')
      .set({ features: JSON.stringify(renamed), updated_at: nowIso })
      .where('id', '=', plan.id)
      .execute();
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await rename(db, RENAMED);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await rename(
    db,
    RENAMED.map(([english, french]) => [french, english] as const),
  );
}
