import { describe, expect, it } from 'vitest';
import { safeRedirect } from './safe-redirect';

describe('safeRedirect', () => {
  it('follows same-site paths only', () => {
    expect(safeRedirect('/subscribe?plan_id=1', '/client')).toBe('/subscribe?plan_id=1');
    expect(safeRedirect('https://evil.example', '/client')).toBe('/client');
    expect(safeRedirect('//evil.example', '/client')).toBe('/client');
    expect(safeRedirect('/\\evil.example', '/client')).toBe('/client');
    expect(safeRedirect(null, '/client')).toBe('/client');
  });
});
