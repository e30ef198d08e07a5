/** `{{ name }}` placeholders; names are letters, digits and underscores. */
const PLACEHOLDER = /\{\{\s*([a-zA-Z0-9_]+)\s*\}\}/g;

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

export type TemplateVariables = Record<string, string | number | null | undefined>;

/** Replaces placeholders; unknown names become empty. `html` escapes values for an HTML body. */
export function renderTemplate(source: string, variables: TemplateVariables, mode: 'html' | 'text'): string {
  return source.replace(PLACEHOLDER, (_match, name: string) => {
    const value = variables[name];
    if (value === null || value === undefined) return '';
    const text = String(value);
    return mode === 'html' ? escapeHtml(text) : text;
  });
}

/** The placeholder names a template uses, in order of first appearance. */
export function listPlaceholders(...sources: string[]): string[] {
  const names = new Set<string>();
  for (const source of sources)
    for (const match of source.matchAll(PLACEHOLDER)) names.add(match[1] as string);
  return [...names];
}

/** Every http(s) link in a text, for printing outbox mail to the server log. */
export function extractLinks(text: string): string[] {
  const links = (text.match(/https?:\/\/[^\s<>"')]+/g) ?? []).map((link) => link.replace(/[.,;:!?]+$/, ''));
  return [...new Set(links)];
}
