import { validateNewPassphrase } from '@securering/e2ee';

/** What the passphrase dialog asks for: a first passphrase, the usual unlock, or new keys. */
export type PassphraseMode = 'create' | 'unlock' | 'reset';

export interface PassphraseErrors {
  passphrase?: string;
  confirmation?: string;
}

export const PASSPHRASE_REQUIRED = 'Saisissez votre phrase secrète';

/**
 * Checks the dialog's fields before any key derivation: a new passphrase (first time or reset)
 * needs 12 characters and a matching confirmation (the e2ee package's French messages); an unlock
 * needs a non-empty passphrase. Returns the error of each field, or an empty object.
 */
export function validatePassphraseForm(
  mode: PassphraseMode,
  values: { passphrase: string; confirmation: string },
): PassphraseErrors {
  if (mode === 'unlock') return values.passphrase ? {} : { passphrase: PASSPHRASE_REQUIRED };
  const problem = validateNewPassphrase(values.passphrase, values.confirmation);
  if (!problem) return {};
  return validateNewPassphrase(values.passphrase, values.passphrase)
    ? { passphrase: problem }
    : { confirmation: problem };
}
