import DOMPurify from 'dompurify';

/**
 * Second line of defence for admin-supplied HTML (the server sanitises before storing): no script,
 * event handler, javascript: URL, style or form survives.
 */
export function sanitizeHtml(html: string): string {
  return DOMPurify.sanitize(html, {
    FORBID_TAGS: [
      'style',
      'img',
      'form',
      'input',
      'button',
      'textarea',
      'select',
      'iframe',
      'object',
      'embed',
      'svg',
      'math',
    ],
    FORBID_ATTR: ['style'],
    ALLOW_DATA_ATTR: false,
  });
}
