import { describe, expect, it } from 'vitest';
import { formatLimit, videoOptionLabel } from './plans';

describe('plan display rules', () => {
  it('shows Illimité for -1', () => {
    expect(formatLimit(-1)).toBe('Illimité');
    expect(formatLimit(50)).toBe('50');
  });

  it('shows the video option price in the one money format, or that video is included', () => {
    expect(videoOptionLabel(9.9)).toBe('+9,90\u00a0€ / mois');
    expect(videoOptionLabel(0)).toBe('✓ Vidéo incluse');
    expect(videoOptionLabel(99, 'an')).toBe('+99,00\u00a0€ / an');
  });
});
