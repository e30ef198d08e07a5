import { describe, expect, it } from 'vitest';
import { ConcurrencyGate, fitCatchUp } from './catch-up-budget';

describe('catch-up budget', () => {
  it('sends the next messages, in order, while their sizes fit the byte budget, and no more', () => {
    expect(fitCatchUp([40, 40, 30], 100, true)).toBe(2);
    expect(fitCatchUp([40, 60, 1], 100, true)).toBe(2);
    expect(fitCatchUp([10, 10], 100, true)).toBe(2);
    expect(fitCatchUp([], 100, true)).toBe(0);
    // In order: a small message after the one that does not fit waits for the next page.
    expect(fitCatchUp([90, 20, 5], 100, true)).toBe(1);
  });

  it('always sends a first message, however large, when asked to; a later conversation may get none', () => {
    expect(fitCatchUp([500, 10], 100, true)).toBe(1);
    expect(fitCatchUp([500, 10], 100, false)).toBe(0);
    expect(fitCatchUp([30, 10], 20, false)).toBe(0);
    expect(fitCatchUp([20, 10], 20, false)).toBe(1);
  });

  it('pages through a backlog of any sizes: each message once, in order, each page within the budget', () => {
    const sizes = Array.from({ length: 200 }, (_, i) => ((i * 7919) % 97) * 1000 + 1);
    const budget = 150_000;
    const pages: number[][] = [];
    for (let next = 0; next < sizes.length;) {
      const count = fitCatchUp(sizes.slice(next, next + 100), budget, true);
      const page = Array.from({ length: count }, (_, i) => next + i);
      expect(page.length).toBeGreaterThan(0);
      expect(page.length === 1 || page.reduce((sum, i) => sum + sizes[i]!, 0) <= budget).toBe(true);
      pages.push(page);
      next += count;
    }
    expect(pages.flat()).toEqual(sizes.map((_, i) => i));
  });

  it('runs at most `limit` tasks at once, the others in order', async () => {
    const gate = new ConcurrencyGate(2);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        gate.run(async () => {
          running++;
          peak = Math.max(peak, running);
          await new Promise((resolve) => setTimeout(resolve, 5));
          order.push(i);
          running--;
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('keeps a finished task’s place until its answer is written, and answers it at once', async () => {
    const gate = new ConcurrencyGate(1, 1000);
    let written!: () => void;
    const first = await gate.run(async () => 'first', new Promise<void>((resolve) => (written = resolve)));
    expect(first).toBe('first');
    let secondStarted = false;
    const second = gate.run(async () => {
      secondStarted = true;
      return 'second';
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(secondStarted).toBe(false);
    written();
    expect(await second).toBe('second');
  });

  it('gives the place back after its longest hold when the answer is never written', async () => {
    const gate = new ConcurrencyGate(1, 30);
    await gate.run(async () => 'stuck', new Promise(() => undefined));
    const started = Date.now();
    expect(await gate.run(async () => 'next')).toBe('next');
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });
});
