import type { FieldErrors, FieldValues, Resolver } from 'react-hook-form';

/**
 * Turns a pure validation function of the contract (`values → { field: message }`) into a
 * react-hook-form resolver, so forms show exactly the messages the server would answer.
 */
export function resolverFrom<T extends FieldValues>(
  validate: (values: T) => Partial<Record<keyof T, string>>,
): Resolver<T> {
  return async (values) => {
    const problems = validate(values);
    const errors: FieldErrors<T> = {};
    for (const [field, message] of Object.entries(problems)) {
      if (message)
        (errors as Record<string, { type: string; message: string }>)[field] = {
          type: 'validate',
          message: message as string,
        };
    }
    return Object.keys(errors).length ? { values: {}, errors } : { values, errors: {} };
  };
}
