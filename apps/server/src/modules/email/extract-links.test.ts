import { describe, expect, it } from 'vitest';
import { extractLinks } from './extract-links';

describe('extractLinks', () => {
  it('extracts links for the log', () => {
    expect(extractLinks('Cliquez : http://127.0.0.1:8080/verify-email?token=abc.\nFin')).toEqual([
      'http://127.0.0.1:8080/verify-email?token=abc',
    ]);
  });
});
