import { z } from 'zod';

/** Every failure answers this shape, with a French message. */
export const ZApiError = z.object({ success: z.literal(false), error: z.string() });
export type TApiError = z.infer<typeof ZApiError>;

/** Builds the success envelope `{ success: true, ...fields }`. */
export function successOf<T extends z.ZodRawShape>(shape: T) {
  return z.object({ success: z.literal(true), ...shape });
}

export const ZOk = successOf({ message: z.string().optional() });
export type TOk = z.infer<typeof ZOk>;

/**
 * A string whose length is checked before anything else: an over-long value stops validation at
 * once (zod `abort`), so no later pattern, refinement or transform of the schema ever runs on it.
 */
export const zBoundedString = (max: number, message?: string) =>
  z.string().max(max, message === undefined ? { abort: true } : { message, abort: true });

/** Loose boolean for legacy clients that send 0/1, '0'/'1', 'true'/'false'. */
export const zLooseBoolean = z.union([z.boolean(), z.number(), z.string()]).transform((v) => {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  return ['1', 'true', 'on', 'yes'].includes(v.trim().toLowerCase());
});
