import type * as ShellSchemas from './shell-schemas';

export type ShellSchemaName = keyof typeof ShellSchemas;

/**
 * A loader of one of the shell's contract schemas. The first call downloads zod and the schemas
 * (one small chunk, cached afterwards), so the JavaScript a page needs before it can paint holds
 * no validation library; answers are still checked against the contract before they are used.
 */
export function lazySchema<K extends ShellSchemaName>(name: K): () => Promise<(typeof ShellSchemas)[K]> {
  return async () => (await import('./shell-schemas'))[name];
}
