/**
 * Search in the decrypted history a page holds (issue 29): accents, case and typographic variants
 * are ignored (« ecole » finds « l’École »), the match is located in the original text for the
 * snippet. Pure: runs in memory, on texts that never leave the page.
 */

/** Shortest query searched (one letter would match nearly everything). */
export const MIN_QUERY_LENGTH = 2;
/** Characters of context on each side of the match in a snippet. */
export const SNIPPET_CONTEXT = 40;
/** Results shown at most (the newest first). */
export const MAX_RESULTS = 100;

const FOLDS: Readonly<Record<string, string>> = {
  œ: 'oe',
  æ: 'ae',
  ß: 'ss',
  '’': "'",
  ʼ: "'",
  '‘': "'",
  '«': '"',
  '»': '"',
  '“': '"',
  '”': '"',
  '\u00a0': ' ',
  '\u202f': ' ',
};

/** One character folded: lower case, without diacritics, ligatures spelled out. */
function foldChar(char: string): string {
  const lower = char.toLowerCase();
  const folded = FOLDS[lower];
  if (folded !== undefined) return folded;
  return lower.normalize('NFD').replace(/\p{M}/gu, '');
}

/**
 * `text` folded, with, for each folded character, the index of the original character it comes
 * from (to find the match again in the text shown).
 */
export function foldWithMap(text: string): { folded: string; origin: number[] } {
  let folded = '';
  const origin: number[] = [];
  let index = 0;
  for (const char of text) {
    const piece = foldChar(char);
    for (let i = 0; i < piece.length; i++) origin.push(index);
    folded += piece;
    index += char.length;
  }
  origin.push(index);
  return { folded, origin };
}

/** The query as it is compared: folded, spaces collapsed, trimmed. */
export function foldQuery(query: string): string {
  return foldWithMap(query).folded.replace(/\s+/g, ' ').trim();
}

/** Where `query` (already folded) first occurs in `text`: original start and end, or null. */
export function findMatch(text: string, foldedQuery: string): { start: number; end: number } | null {
  if (foldedQuery.length < MIN_QUERY_LENGTH) return null;
  const { folded, origin } = foldWithMap(text);
  const normalised = folded.replace(/\s/g, ' ');
  const at = normalised.indexOf(foldedQuery);
  if (at < 0) return null;
  // The end: where the original character after the match starts (its combining marks included).
  return { start: origin[at]!, end: origin[at + foldedQuery.length]! };
}

/** The snippet around a match: `before`, `match`, `after`, with « … » where the text was cut. */
export function snippetOf(
  text: string,
  match: { start: number; end: number },
  context = SNIPPET_CONTEXT,
): { before: string; match: string; after: string } {
  const flat = (s: string) => s.replace(/\s+/g, ' ');
  const from = Math.max(0, match.start - context);
  const to = Math.min(text.length, match.end + context);
  return {
    before: (from > 0 ? '…' : '') + flat(text.slice(from, match.start)),
    match: flat(text.slice(match.start, match.end)),
    after: flat(text.slice(match.end, to)) + (to < text.length ? '…' : ''),
  };
}

export interface SearchItem {
  key: string;
  messageId: string | null;
  clientMessageId: string;
  senderName: string;
  at: string;
  text: string;
}

export interface SearchResult extends SearchItem {
  snippet: { before: string; match: string; after: string };
}

/** The items matching `query`, newest first, at most {@link MAX_RESULTS}. */
export function searchItems(items: readonly SearchItem[], query: string): SearchResult[] {
  const folded = foldQuery(query);
  if (folded.length < MIN_QUERY_LENGTH) return [];
  const out: SearchResult[] = [];
  for (let i = items.length - 1; i >= 0 && out.length < MAX_RESULTS; i--) {
    const item = items[i]!;
    const match = findMatch(item.text, folded);
    if (match) out.push({ ...item, snippet: snippetOf(item.text, match) });
  }
  return out;
}
