const TRAILING_PUNCTUATION = new Set(['.', ',', ';', ':', '!', '?']);

/** Drops sentence punctuation after a link, in one pass (`/[.,;:!?]+$/` backtracked quadratically). */
function trimTrailingPunctuation(link: string): string {
  let end = link.length;
  while (end > 0 && TRAILING_PUNCTUATION.has(link[end - 1]!)) end--;
  return link.slice(0, end);
}

/** Every http(s) link in a text, for printing outbox mail to the server log. */
export function extractLinks(text: string): string[] {
  const links = (text.match(/https?:\/\/[^\s<>"')]+/g) ?? []).map(trimTrailingPunctuation);
  return [...new Set(links)];
}
