import { describe, expect, it } from 'vitest';
import { ringRefreshMs } from './ring-info';

describe('ringRefreshMs', () => {
  it('reads the back office’s interval in seconds, within 5 to 300 s, 10 s by default', () => {
    expect(ringRefreshMs('45')).toBe(45_000);
    expect(ringRefreshMs('2')).toBe(5_000);
    expect(ringRefreshMs('900')).toBe(300_000);
    expect(ringRefreshMs(undefined)).toBe(10_000);
    expect(ringRefreshMs(' ')).toBe(10_000);
    expect(ringRefreshMs('vite')).toBe(10_000);
  });
});
