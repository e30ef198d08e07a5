/**
 * French typography for UI text: a narrow no-break space (U+202F) before « : ; ! ? % » and inside
 * « guillemets », typographic apostrophes (’) and the minus sign (−) before a negative number.
 * One helper applies the rules to text that does not come from the source (plan features, admin
 * texts); `typographyViolations` names the rules a string breaks, for the scanner tests that keep
 * the contract's messages and the web app's strings clean.
 */

/** U+202F NARROW NO-BREAK SPACE: before « : ; ! ? % » and inside « guillemets ». */
export const NNBSP = '\u202f';
/** U+00A0 NO-BREAK SPACE: between an amount and its currency sign, as fr-FR writes it. */
export const NBSP = '\u00a0';

export type TypographyRule = 'apostrophe' | 'espace-ponctuation' | 'guillemets' | 'pourcentage' | 'moins';

/**
 * Each rule rewrites what it covers and leaves the rest alone, so applying it twice changes nothing.
 * A sign is only spaced when it ends a word (followed by a space, the end or a closing mark): URLs
 * ("/subscribe?resume=1"), times ("12:30") and identifiers ("room:general") keep theirs.
 */
const RULES: ReadonlyArray<{ rule: TypographyRule; apply: (text: string) => string }> = [
  { rule: 'apostrophe', apply: (t) => t.replace(/(?<=\p{L})'(?=\p{L})/gu, '’') },
  {
    rule: 'espace-ponctuation',
    apply: (t) =>
      t
        .replace(/([^\s([{«\u202f/=])[ \u00a0]?([;!?]+)(?=$|[\s»”)\]"'’.,…])/gu, `$1${NNBSP}$2`)
        .replace(/([^\s([{«\u202f/:=])[ \u00a0]?:(?=$|\s)/gu, `$1${NNBSP}:`),
  },
  {
    rule: 'guillemets',
    apply: (t) => t.replace(/«[ \u00a0]?(?=\S)/gu, `«${NNBSP}`).replace(/(?<=\S)[ \u00a0]?»/gu, `${NNBSP}»`),
  },
  { rule: 'pourcentage', apply: (t) => t.replace(/(\d)[ \u00a0]?%/gu, `$1${NNBSP}%`) },
  { rule: 'moins', apply: (t) => t.replace(/(^|[\s(])-(?=\d)/gu, '$1−') },
];

/** The text with French typography applied: "Rings: 1" → "Rings : 1" (U+202F), "l'accès" → "l’accès". */
export function frenchTypography(text: string): string {
  return RULES.reduce((out, { apply }) => apply(out), text);
}

/** The rules `text` breaks (empty when it is typographically clean). */
export function typographyViolations(text: string): TypographyRule[] {
  return RULES.filter(({ apply }) => apply(text) !== text).map(({ rule }) => rule);
}
