import { sql } from 'kysely';
import type { Database } from './database';

/**
 * PostgreSQL plans each query from its statistics of the tables, which autovacuum keeps up to date.
 * Without them (autovacuum off and no ANALYZE), a table that grew is still taken for empty: every
 * estimate is a row or two and a join may start from the wrong end. Measured here: the Ring
 * session lookup of every request then walked every active member of every Ring (10 ms instead of
 * 0.15 ms with 1,000 members) — see docs/OPERATIONS.md.
 */
export function plannerStatisticsWarning(autovacuum: string | undefined): string | undefined {
  if (autovacuum === 'on') return undefined;
  return (
    'PostgreSQL : autovacuum est désactivé, les statistiques des tables ne sont plus tenues à jour ' +
    'et les requêtes peuvent devenir lentes à mesure que la base grandit. Réactivez autovacuum ' +
    '(recommandé) ou lancez ANALYZE régulièrement.'
  );
}

/** The warning of plannerStatisticsWarning for this PostgreSQL server, if it applies. */
export async function checkPlannerStatistics(db: Database): Promise<string | undefined> {
  const { rows } = await sql<{ autovacuum: string }>`show autovacuum`.execute(db);
  return plannerStatisticsWarning(rows[0]?.autovacuum);
}
