import { describe, expect, it } from 'vitest';
import { findMatch, foldQuery, searchItems, snippetOf, type SearchItem } from './search-policy';

const item = (key: string, text: string): SearchItem => ({
  key,
  messageId: key,
  clientMessageId: `c-${key}`,
  senderName: 'Léa',
  at: '2026-11-29T08:00:00.000Z',
  text,
});

describe('search in the decrypted history (issue 29)', () => {
  it('ignores accents and case: « ecole » finds « l’École », « ÉCOLE » finds « école »', () => {
    const text = 'Rendez-vous devant l’École à 8 h';
    const match = findMatch(text, foldQuery('ecole'));
    expect(match && text.slice(match.start, match.end)).toBe('École');
    expect(findMatch('à l’école', foldQuery('ÉCOLE'))).not.toBeNull();
    expect(findMatch('Noël', foldQuery('noel'))).not.toBeNull();
    expect(findMatch('cœur', foldQuery('coeur'))).not.toBeNull();
    expect(findMatch('l’avion', foldQuery("l'avion"))).not.toBeNull();
    expect(findMatch('prix\u202f: 3', foldQuery('prix :'))).not.toBeNull();
  });

  it('finds nothing for another word, an empty or a one-letter query', () => {
    expect(findMatch('école', foldQuery('ecolo'))).toBeNull();
    expect(findMatch('école', foldQuery(' '))).toBeNull();
    expect(findMatch('école', foldQuery('e'))).toBeNull();
  });

  it('locates the match in a decomposed text, combining marks included', () => {
    const text = 'une e\u0301cole';
    const match = findMatch(text, foldQuery('école'))!;
    expect(text.slice(match.start, match.end)).toBe('e\u0301cole');
  });

  it('cuts the snippet around the match with ellipses, on one line', () => {
    const text = `${'a'.repeat(100)} mot\ncherché ${'b'.repeat(100)}`;
    const match = findMatch(text, foldQuery('mot cherche'))!;
    const snippet = snippetOf(text, match, 5);
    expect(snippet).toEqual({ before: '…aaaa ', match: 'mot cherché', after: ' bbbb…' });
  });

  it('lists matches newest first', () => {
    const results = searchItems(
      [item('1', 'Réunion lundi'), item('2', 'rien'), item('3', 'la reunion est déplacée')],
      'réunion',
    );
    expect(results.map((r) => r.key)).toEqual(['3', '1']);
    expect(results[1]!.snippet.match).toBe('Réunion');
  });
});
