import { describe, expect, it } from 'vitest';
import { RING_TAB_STALE_MS, otherLiveTabs } from './ring-tabs';

describe('otherLiveTabs', () => {
  const now = 1_000_000_000;
  it('counts the other tabs that still beat, not this one nor the stale ones', () => {
    const tabs = {
      self: now,
      popup: now - 1000,
      room: now - RING_TAB_STALE_MS + 1,
      crashed: now - RING_TAB_STALE_MS,
    };
    expect(otherLiveTabs(tabs, 'self', now).sort()).toEqual(['popup', 'room']);
  });
  it('finds none when this is the last tab', () => {
    expect(otherLiveTabs({ self: now }, 'self', now)).toEqual([]);
    expect(otherLiveTabs({ junk: 'x' as unknown as number }, 'self', now)).toEqual([]);
  });
});
