import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contrastRatio, readableBrandColor } from './colors';

describe('readableBrandColor', () => {
  it('computes WCAG contrast ratios', () => {
    expect(contrastRatio('#ffffff', '#000000')).toBeCloseTo(21, 5);
    expect(contrastRatio('#3b82f6', '#ffffff')).toBeCloseTo(3.68, 2);
    expect(contrastRatio('#ffffff', '#3b82f6')).toBeCloseTo(3.68, 2);
  });

  it('darkens the default blue until white text on it and it on white read at 4.5:1', () => {
    const readable = readableBrandColor('#3b82f6');
    expect(readable).toBe('#0b62f0');
    expect(contrastRatio(readable, '#ffffff')).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio(readable, '#f8fafc')).toBeGreaterThanOrEqual(4.5);
  });

  it('keeps a colour that already reads well, and always ends on a readable one', () => {
    expect(readableBrandColor('#1E3A8A')).toBe('#1e3a8a');
    for (const color of ['#ffffff', '#ffff00', '#10b981', '#f59e0b', '#ef4444']) {
      const readable = readableBrandColor(color);
      expect(contrastRatio(readable, '#ffffff'), color).toBeGreaterThanOrEqual(4.5);
    }
  });
});

describe('the default brand colour', () => {
  it('is written in index.css in its readable form, so pages need no conversion for it', async () => {
    const { DEFAULT_GENERAL } = await import('./site-settings');
    const css = fs.readFileSync(new URL('../index.css', import.meta.url), 'utf8');
    expect(css).toContain(`--color-primary: ${readableBrandColor(DEFAULT_GENERAL.primary_color!)};`);
  });
});
