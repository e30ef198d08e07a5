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

/** Loose boolean for legacy clients that send 0/1, '0'/'1', 'true'/'false'. */
export const zLooseBoolean = z.union([z.boolean(), z.number(), z.string()]).transform((v) => {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  return ['1', 'true', 'on', 'yes'].includes(v.trim().toLowerCase());
});
