/** Every http(s) link in a text, for printing outbox mail to the server log. */
export function extractLinks(text: string): string[] {
  const links = (text.match(/https?:\/\/[^\s<>"')]+/g) ?? []).map((link) => link.replace(/[.,;:!?]+$/, ''));
  return [...new Set(links)];
}
