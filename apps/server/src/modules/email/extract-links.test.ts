import { describe, expect, it } from 'vitest';
import { extractLinks } from './extract-links';

describe('extractLinks', () => {
  it('extracts links for the log', () => {
    expect(extractLinks('Cliquez : http://127.0.0.1:8080/verify-email?token=abc.\nFin')).toEqual([
      'http://127.0.0.1:8080/verify-email?token=abc',
    ]);
  });
});

describe('extractLinks on hostile text (issue 9, item 1)', () => {
  it('trims a long run of punctuation inside a link in linear time', () => {
    const link = `http://a/${'.'.repeat(60_000)}x${'.'.repeat(10)}`;
    const started = performance.now();
    expect(extractLinks(`voir ${link} fin`)).toEqual([`http://a/${'.'.repeat(60_000)}x`]);
    // The old pattern took about 3 s on this input; a linear pass takes milliseconds.
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
