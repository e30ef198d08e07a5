import { describe, expect, it } from 'vitest';
import { AUTO_DESTROY, AUTO_DESTROY_PRESETS, formatSeconds, normaliseAutoDestroyDelay } from './protection';

describe('the self-destruct delay', () => {
  it('keeps a delay between 10 s and a day, 300 s when not a number', () => {
    expect(normaliseAutoDestroyDelay('45')).toBe(45);
    expect(normaliseAutoDestroyDelay(3)).toBe(AUTO_DESTROY.min);
    expect(normaliseAutoDestroyDelay(100_000)).toBe(AUTO_DESTROY.max);
    expect(normaliseAutoDestroyDelay('abc')).toBe(AUTO_DESTROY.fallback);
  });

  it('writes seconds with French thousands separators', () => {
    expect(formatSeconds(86_400)).toBe('86\u202f400\u00a0s');
    expect(formatSeconds(300)).toBe('300\u00a0s');
  });

  it('offers presets the field accepts as they are', () => {
    expect(AUTO_DESTROY_PRESETS.map((p) => p.seconds)).toEqual([30, 300, 3_600, 86_400]);
    for (const preset of AUTO_DESTROY_PRESETS) expect(normaliseAutoDestroyDelay(preset.seconds)).toBe(preset.seconds);
  });
});
