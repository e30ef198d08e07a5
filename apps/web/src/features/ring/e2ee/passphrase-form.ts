import { validateNewPassphrase } from '@securering/e2ee';
import type { PassphraseStrength } from './passphrase-strength';

/**
 * What the passphrase dialog asks for: a first passphrase, the usual unlock, new keys, or a new
 * passphrase after the recovery key (« J'ai oublié ma phrase secrète »).
 */
export type PassphraseMode = 'create' | 'unlock' | 'reset' | 'recover';

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
  // 'recover' checks the new passphrase like 'create' (the recovery key is checked apart).
  const problem = validateNewPassphrase(values.passphrase, values.confirmation);
  if (!problem) return {};
  return validateNewPassphrase(values.passphrase, values.passphrase)
    ? { passphrase: problem }
    : { confirmation: problem };
}

/**
 * The lowest zxcvbn score a new passphrase may have: 4, at least 10^10 guesses. With Argon2id at
 * 64 MiB an offline attacker tries at most thousands a second on a GPU farm: years for such a
 * phrase, days or hours for a score of 3 (10^8 guesses).
 */
export const MIN_PASSPHRASE_SCORE = 4;

/** The meter's words for zxcvbn scores 0 to 4. */
export const STRENGTH_LABELS = ['Très faible', 'Faible', 'Moyenne', 'Bonne', 'Très forte'] as const;

export const SAME_AS_ACCOUNT_PASSWORD =
  'Choisissez une phrase secrète différente du mot de passe de votre compte\u202f: le serveur voit ce mot de passe à chaque connexion.';

/**
 * Refuses a new passphrase (length and confirmation already checked) that equals the member's
 * account password, or that the estimator finds guessable (score below 4), with its French warning.
 */
export function strengthProblem(
  strength: PassphraseStrength,
  sameAsAccountPassword: boolean,
): string | undefined {
  if (sameAsAccountPassword) return SAME_AS_ACCOUNT_PASSWORD;
  if (strength.score >= MIN_PASSPHRASE_SCORE) return undefined;
  const why = strength.warning ? `\u202f: ${strength.warning.replace(/\.$/, '')}.` : '.';
  return `Phrase secrète trop facile à deviner${why} Allongez-la avec des mots inattendus.`;
}
