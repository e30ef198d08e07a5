import type sanitize from 'sanitize-html';

/**
 * Admin-supplied page HTML is reduced to structural markup: no script, no event handler, no style,
 * and links only to http(s), mailto and tel.
 */
const OPTIONS: Omit<sanitize.IOptions, 'transformTags'> = {
  allowedTags: [
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'p',
    'br',
    'hr',
    'div',
    'span',
    'section',
    'article',
    'ul',
    'ol',
    'li',
    'dl',
    'dt',
    'dd',
    'strong',
    'b',
    'em',
    'i',
    'u',
    's',
    'small',
    'sub',
    'sup',
    'blockquote',
    'code',
    'pre',
    'a',
    'table',
    'thead',
    'tbody',
    'tfoot',
    'tr',
    'th',
    'td',
    'caption',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'target', 'rel'],
    th: ['colspan', 'rowspan', 'scope'],
    td: ['colspan', 'rowspan'],
    '*': ['id'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
};

/**
 * sanitize-html (about 2 MiB of heap, with its HTML parser) is loaded at the first page an admin
 * saves, not at start-up (issue 30's memory budget). One promise.
 */
let sanitizer: Promise<(html: string) => string> | undefined;
const loadSanitizer = (): Promise<(html: string) => string> =>
  (sanitizer ??= import('sanitize-html').then(({ default: sanitizeHtml }) => {
    const options: sanitize.IOptions = {
      ...OPTIONS,
      transformTags: {
        a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer' }, true),
      },
    };
    return (html: string) => sanitizeHtml(html, options);
  }));

export async function sanitizeRichHtml(html: string): Promise<string> {
  return (await loadSanitizer())(html);
}
