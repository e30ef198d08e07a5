import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { settledMediaQuery, type MediaQuerySource } from './use-wide-layout';

/** A media query the test resizes. */
function fakeQuery(initial: boolean) {
  const listeners = new Set<() => void>();
  const query = {
    matches: initial,
    addEventListener: (_: 'change', listener: () => void) => listeners.add(listener),
    removeEventListener: (_: 'change', listener: () => void) => listeners.delete(listener),
    set(matches: boolean) {
      query.matches = matches;
      for (const listener of listeners) listener();
    },
    listeners,
  };
  return query satisfies MediaQuerySource & { set(matches: boolean): void };
}

describe('settledMediaQuery (the room layout follows the window once its size settles)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('ignores a size that passes: narrowed and widened again within the delay', () => {
    const query = fakeQuery(true);
    const store = settledMediaQuery(() => query, 250);
    const onChange = vi.fn();
    store.subscribe(onChange);
    query.set(false);
    vi.advanceTimersByTime(100);
    expect(store.getSnapshot()).toBe(true);
    query.set(true);
    vi.advanceTimersByTime(300);
    expect(store.getSnapshot()).toBe(true);
  });

  it('follows a size kept for the delay, and tells its subscriber', () => {
    const query = fakeQuery(true);
    const store = settledMediaQuery(() => query, 250);
    const onChange = vi.fn();
    store.subscribe(onChange);
    query.set(false);
    vi.advanceTimersByTime(249);
    expect(store.getSnapshot()).toBe(true);
    vi.advanceTimersByTime(1);
    expect(store.getSnapshot()).toBe(false);
    expect(onChange).toHaveBeenCalledTimes(1);
  });

  it('reads the window itself when nobody follows it, and stops listening on unsubscribe', () => {
    const query = fakeQuery(false);
    const store = settledMediaQuery(() => query, 250);
    expect(store.getSnapshot()).toBe(false);
    query.matches = true;
    expect(store.getSnapshot()).toBe(true);
    const unsubscribe = store.subscribe(vi.fn());
    unsubscribe();
    expect(query.listeners.size).toBe(0);
    query.matches = false;
    expect(store.getSnapshot()).toBe(false);
  });
});
