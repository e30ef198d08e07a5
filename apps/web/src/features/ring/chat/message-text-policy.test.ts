import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_BYTES } from '@securering/e2ee';
import {
  COLLAPSE_AFTER_CHARS,
  MESSAGE_MAX_CHARS,
  collapseSegments,
  externalHost,
  linkify,
  messageLengthProblem,
  messageTextAccess,
} from './message-text-policy';

describe('linkify', () => {
  it('finds http, https and www. addresses between text', () => {
    expect(linkify('Voir https://exemple.fr/a?b=1#c et www.exemple.org puis http://x.io.')).toEqual([
      { kind: 'text', text: 'Voir ' },
      { kind: 'link', text: 'https://exemple.fr/a?b=1#c', href: 'https://exemple.fr/a?b=1#c' },
      { kind: 'text', text: ' et ' },
      { kind: 'link', text: 'www.exemple.org', href: 'https://www.exemple.org/' },
      { kind: 'text', text: ' puis ' },
      { kind: 'link', text: 'http://x.io', href: 'http://x.io/' },
      { kind: 'text', text: '.' },
    ]);
  });

  it('leaves sentence punctuation out of the link, keeps brackets the URL opened', () => {
    expect(linkify('(https://a.fr/page), https://a.fr/x?!')).toEqual([
      { kind: 'text', text: '(' },
      { kind: 'link', text: 'https://a.fr/page', href: 'https://a.fr/page' },
      { kind: 'text', text: '), ' },
      { kind: 'link', text: 'https://a.fr/x', href: 'https://a.fr/x' },
      { kind: 'text', text: '?!' },
    ]);
    expect(linkify('https://fr.wikipedia.org/wiki/Paris_(France).')[0]).toEqual({
      kind: 'link',
      text: 'https://fr.wikipedia.org/wiki/Paris_(France)',
      href: 'https://fr.wikipedia.org/wiki/Paris_(France)',
    });
    expect(linkify('«\u202fhttps://a.fr\u202f»')[1]).toMatchObject({ kind: 'link', text: 'https://a.fr' });
  });

  it('never links other schemes or text that merely looks like one', () => {
    for (const text of [
      'javascript:alert(1)',
      'JavaScript://www.a.fr%0Aalert(1)',
      'data:text/html,<b>x</b>',
      'ftp://a.fr',
      'xhttps://a.fr',
      'https://localhost',
      'un IBAN FR76 3000 6000 0112 3456 7890 189',
    ]) {
      expect(linkify(text).filter((s) => s.kind === 'link')).toEqual([]);
    }
    expect(linkify('')).toEqual([]);
    expect(linkify('bonjour')).toEqual([{ kind: 'text', text: 'bonjour' }]);
  });

  it('keeps the text whole: the segments join back to the message', () => {
    const text = `Lien long https://exemple.fr/${'a'.repeat(184)} fin`;
    expect(
      linkify(text)
        .map((s) => s.text)
        .join(''),
    ).toBe(text);
  });
});

describe('externalHost', () => {
  it('names the domain of a link leaving this site only', () => {
    expect(externalHost('https://exemple.fr/x', 'https://app.securering.fr')).toBe('exemple.fr');
    expect(externalHost('https://app.securering.fr/r/1', 'https://app.securering.fr')).toBeNull();
    expect(externalHost('http://app.securering.fr/r/1', 'https://app.securering.fr')).toBe(
      'app.securering.fr',
    );
  });
});

describe('collapseSegments', () => {
  it('leaves messages up to 1,500 characters alone', () => {
    expect(collapseSegments(linkify('a'.repeat(COLLAPSE_AFTER_CHARS)))).toBeNull();
  });

  it('cuts longer ones at 1,500 characters, never inside a link or an emoji', () => {
    const cut = collapseSegments(linkify('é'.repeat(1600)));
    expect(cut).toEqual([{ kind: 'text', text: `${'é'.repeat(1500)}…` }]);
    const link = `https://exemple.fr/${'b'.repeat(40)}`;
    const withLink = collapseSegments(linkify(`${'a'.repeat(1490)} ${link} ${'c'.repeat(100)}`));
    expect(withLink?.[1]).toEqual({ kind: 'link', text: link, href: link });
    expect(withLink).toHaveLength(2);
    const emoji = collapseSegments(linkify('😀'.repeat(800)), 3);
    expect(emoji).toEqual([{ kind: 'text', text: '😀😀😀…' }]);
  });
});

describe('messageTextAccess', () => {
  it('lets readers select text at every level but the strict one, which offers « Copier » instead', () => {
    for (const level of ['disabled', 'basic', 'standard'] as const)
      expect(messageTextAccess(level)).toEqual({ selectable: true, copyAction: false });
    expect(messageTextAccess('maximum')).toEqual({ selectable: false, copyAction: true });
  });
});

describe('messageLengthProblem', () => {
  it('says how long the text is and the limit instead of cutting it', () => {
    expect(messageLengthProblem('a'.repeat(MESSAGE_MAX_CHARS))).toBeNull();
    expect(messageLengthProblem('a'.repeat(20_145))).toBe(
      'Message trop long\u202f: 20\u202f145 caractères pour 20\u202f000 au maximum. Raccourcissez-le ou envoyez-le en plusieurs fois.',
    );
  });

  it('keeps every accepted message within the encrypted envelope', () => {
    expect(new TextEncoder().encode('😀'.repeat(MESSAGE_MAX_CHARS / 2)).length).toBeLessThanOrEqual(
      MAX_MESSAGE_BYTES,
    );
    expect(new TextEncoder().encode('€'.repeat(MESSAGE_MAX_CHARS)).length).toBeLessThanOrEqual(
      MAX_MESSAGE_BYTES,
    );
  });
});
