import { sql, type Expression, type RawBuilder } from 'kysely';

/** `%term%` for LIKE, with the wildcards of the term itself escaped (ESCAPE '\' on both dialects). */
function likePattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Case-insensitive "`expr` contains `term`" for SQLite and PostgreSQL; LIKE wildcards in the term
 * are taken literally. SQLite's lower() folds ASCII only: the term as typed is tried too, so
 * "Éloïse" finds "Éloïse" and "Échec" finds "Échec" as well as "échec".
 */
export function containsIgnoringCase(expr: Expression<unknown>, term: string): RawBuilder<boolean> {
  const lowered = likePattern(term.toLowerCase());
  const asTyped = likePattern(term);
  return sql<boolean>`(lower(${expr}) like ${lowered} escape '\\' or ${expr} like ${asTyped} escape '\\')`;
}
