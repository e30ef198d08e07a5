import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

/** zxcvbn's 0–4 score and its French advice for one passphrase. */
export interface PassphraseStrength {
  score: 0 | 1 | 2 | 3 | 4;
  /** Why it is guessable (French), or null. */
  warning: string | null;
  /** How to make it stronger (French). */
  suggestions: string[];
}

let estimator: Promise<ZxcvbnFactory> | null = null;

/**
 * The zxcvbn-ts estimator with its common and French dictionaries, French advice and keyboard
 * layouts (AZERTY among them). Several megabytes of word lists: imported only when a passphrase
 * dialog asks for a new passphrase, once per page.
 */
function loadEstimator(): Promise<ZxcvbnFactory> {
  estimator ??= Promise.all([
    import('@zxcvbn-ts/core'),
    import('@zxcvbn-ts/language-common'),
    import('@zxcvbn-ts/language-fr'),
  ]).then(
    ([core, common, fr]) =>
      new core.ZxcvbnFactory({
        translations: fr.translations,
        graphs: common.adjacencyGraphs,
        dictionary: { ...common.dictionary, ...fr.dictionary },
        useLevenshteinDistance: true,
      }),
  );
  estimator.catch(() => {
    estimator = null;
  });
  return estimator;
}

/**
 * How hard `passphrase` is to guess offline (zxcvbn-ts with French word lists), counting words the
 * attacker knows about this member (`userInputs`: username, email, Ring name) as dictionary words.
 */
export async function estimatePassphraseStrength(
  passphrase: string,
  userInputs: readonly string[] = [],
): Promise<PassphraseStrength> {
  const zxcvbn = await loadEstimator();
  const result = zxcvbn.check(passphrase.normalize('NFC'), [...userInputs]);
  return {
    score: result.score,
    warning: result.feedback.warning,
    suggestions: result.feedback.suggestions,
  };
}
