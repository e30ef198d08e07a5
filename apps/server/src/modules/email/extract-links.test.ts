import { describe, expect, it } from 'vitest';
import { extractLinks, listPlaceholders, renderTemplate } from './template-renderer';

describe('renderTemplate', () => {
  it('replaces known placeholders and blanks unknown ones', () => {
    expect(renderTemplate('Bonjour {{ first_name }}{{missing}} !', { first_name: 'Léa' }, 'text')).toBe(
      'Bonjour Léa !',
    );
  });

  it('escapes values in HTML mode only', () => {
    const vars = { name: '<script>alert(1)</script>' };
    expect(renderTemplate('<p>{{name}}</p>', vars, 'html')).toBe(
      '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>',
    );
    expect(renderTemplate('{{name}}', vars, 'text')).toBe('<script>alert(1)</script>');
  });

  it('lists placeholders once, in order', () => {
    expect(listPlaceholders('{{a}} {{b}}', '{{a}} {{c}}')).toEqual(['a', 'b', 'c']);
  });

  it('extracts links for the log', () => {
    expect(extractLinks('Cliquez : http://127.0.0.1:8080/verify-email?token=abc.\nFin')).toEqual([
      'http://127.0.0.1:8080/verify-email?token=abc',
    ]);
  });
});
