import { IDLE_CATCH_UP_MS } from '@securering/contract';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_CATCH_UP_WAIT_MS, catchUpChecks, catchUpDelayMs } from './catch-up-checks';

describe('catch-up checks of a Ring connection (issue 26)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Checks driven by fake timers, with a fixed draw and a connection state the test sets. */
  function connection(random = 0.5) {
    const state = { active: true, checks: [] as number[] };
    const checks = catchUpChecks({
      check: () => state.checks.push(Date.now()),
      active: () => state.active,
      random: () => random,
    });
    return { state, checks, start: Date.now() };
  }

  it('draws the moment of a catch_up check within withinMs, bounded to 0–10 s', () => {
    expect(catchUpDelayMs(3000, 0)).toBe(0);
    expect(catchUpDelayMs(3000, 0.5)).toBe(1500);
    expect(catchUpDelayMs(3000, 0.999)).toBeLessThan(3000);
    expect(catchUpDelayMs(3_600_000, 0.5)).toBe(MAX_CATCH_UP_WAIT_MS / 2);
    expect(catchUpDelayMs(-5, 0.5)).toBe(0);
    expect(catchUpDelayMs(Number.NaN, 0.5)).toBe(0);
  });

  it('checks once at the drawn moment after catch_up, however many arrive meanwhile', () => {
    const { state, checks, start } = connection(0.5);
    checks.within(3000);
    checks.within(3000);
    vi.advanceTimersByTime(1499);
    checks.within(100);
    expect(state.checks).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(state.checks).toEqual([start + 1500]);
    vi.advanceTimersByTime(10_000);
    expect(state.checks).toHaveLength(1);
    // A later catch_up is a new check.
    checks.within(3000);
    vi.advanceTimersByTime(1500);
    expect(state.checks).toHaveLength(2);
  });

  // A check "within 0" runs on the next timer turn: a millisecond after its idle minute.
  it('checks after 60 s with nothing received, and every 60 s while the Ring stays quiet', () => {
    const { state, checks } = connection();
    checks.activity();
    vi.advanceTimersByTime(IDLE_CATCH_UP_MS - 1);
    expect(state.checks).toHaveLength(0);
    vi.advanceTimersByTime(2);
    expect(state.checks).toHaveLength(1);
    vi.advanceTimersByTime(IDLE_CATCH_UP_MS - 2);
    expect(state.checks).toHaveLength(1);
    vi.advanceTimersByTime(2);
    expect(state.checks).toHaveLength(2);
    vi.advanceTimersByTime(IDLE_CATCH_UP_MS);
    expect(state.checks).toHaveLength(3);
  });

  it('waits 60 s from the last event received: a busy Ring needs no idle check', () => {
    const { state, checks } = connection();
    checks.activity();
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(IDLE_CATCH_UP_MS - 1000);
      checks.activity();
    }
    expect(state.checks).toHaveLength(0);
    vi.advanceTimersByTime(IDLE_CATCH_UP_MS - 1);
    expect(state.checks).toHaveLength(0);
    vi.advanceTimersByTime(2);
    expect(state.checks).toHaveLength(1);
  });

  it('does not check while disconnected or closed, nor after stop', () => {
    const { state, checks } = connection();
    checks.activity();
    checks.within(3000);
    state.active = false;
    vi.advanceTimersByTime(3 * IDLE_CATCH_UP_MS);
    expect(state.checks).toEqual([]);
    // Not active: activity arms nothing.
    checks.activity();
    state.active = true;
    vi.advanceTimersByTime(3 * IDLE_CATCH_UP_MS);
    expect(state.checks).toEqual([]);

    checks.activity();
    checks.within(3000);
    checks.stop();
    vi.advanceTimersByTime(3 * IDLE_CATCH_UP_MS);
    expect(state.checks).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
