/**
 * Why an operation was refused. The UI maps each code to a French message:
 * - `wrong_passphrase`: the member key record did not open (wrong passphrase or altered record);
 * - `unverifiable`: a signature, tag or context check failed (tampered, moved or not for us);
 * - `missing_key`: the epoch key or the sender's key is not known locally yet (wait for keys);
 * - `invalid_format`: the input does not have the expected shape or sizes;
 * - `weak_passphrase`: a new passphrase is too short;
 * - `too_large`: the plaintext exceeds the format's limit.
 */
export type E2eeErrorCode =
  'wrong_passphrase' | 'unverifiable' | 'missing_key' | 'invalid_format' | 'weak_passphrase' | 'too_large';

/** The only error type the package throws on purpose; `code` is stable, `message` is for logs. */
export class E2eeError extends Error {
  override readonly name = 'E2eeError';

  constructor(
    readonly code: E2eeErrorCode,
    message: string = code,
  ) {
    super(message);
  }
}

/** True when `error` is an E2eeError (with the given code, if one is given). */
export function isE2eeError(error: unknown, code?: E2eeErrorCode): error is E2eeError {
  return error instanceof E2eeError && (code === undefined || error.code === code);
}
