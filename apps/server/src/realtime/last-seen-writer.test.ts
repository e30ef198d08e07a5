import { describe, expect, it } from 'vitest';
import { LastSeenWriter } from './last-seen-writer';

describe('LastSeenWriter', () => {
  it('writes the members seen meanwhile in one call, the latest time of each', async () => {
    const writes: Array<Record<string, string>> = [];
    const writer = new LastSeenWriter(
      { touchMembers: async (seen) => void writes.push(Object.fromEntries(seen)) },
      (error) => {
        throw error;
      },
      60_000,
    );
    writer.touch('a', '2026-11-27T10:00:01.000Z');
    writer.touch('b', '2026-11-27T10:00:02.000Z');
    writer.touch('a', '2026-11-27T10:00:03.000Z');
    // An older time arriving late does not win.
    writer.touch('b', '2026-11-27T10:00:00.500Z');
    expect(writes).toEqual([]);
    await writer.flush();
    expect(writes).toEqual([{ a: '2026-11-27T10:00:03.000Z', b: '2026-11-27T10:00:02.000Z' }]);
    // Nothing waiting: nothing written.
    await writer.flush();
    expect(writes).toHaveLength(1);
  });

  it('writes in order, one batch after the other, and goes on after a failed write', async () => {
    const order: string[] = [];
    const errors: unknown[] = [];
    let release!: () => void;
    const writer = new LastSeenWriter(
      {
        touchMembers: async (seen) => {
          const ids = [...seen.keys()].join(',');
          order.push(`start ${ids}`);
          if (ids === 'a') {
            await new Promise<void>((resolve) => (release = resolve));
            throw new Error('database gone');
          }
          order.push(`end ${ids}`);
        },
      },
      (error) => errors.push(error),
      60_000,
    );
    writer.touch('a', '2026-11-27T10:00:01.000Z');
    const first = writer.flush();
    writer.touch('b', '2026-11-27T10:00:02.000Z');
    const second = writer.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['start a']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['start a', 'start b', 'end b']);
    expect(errors).toHaveLength(1);
  });

  it('writes by itself after its delay', async () => {
    const written = new Promise<ReadonlyMap<string, string>>((resolve) => {
      const writer = new LastSeenWriter({ touchMembers: async (seen) => resolve(seen) }, () => undefined, 5);
      writer.touch('a', '2026-11-27T10:00:01.000Z');
    });
    expect(Object.fromEntries(await written)).toEqual({ a: '2026-11-27T10:00:01.000Z' });
  });
});
