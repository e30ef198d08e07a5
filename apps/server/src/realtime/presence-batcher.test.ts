import type { TPresenceUpdate } from '@securering/contract';
import { describe, expect, it } from 'vitest';
import { PresenceBatcher, type BatchTimers, type PresenceBatch } from './presence-batcher';

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Timers run by hand: `advance(ms)` fires, in time order, whatever falls due (and what it started). */
class ManualTimers implements BatchTimers {
  private at = 0;
  private nextId = 0;
  private readonly due = new Map<number, { at: number; run: () => void }>();
  now = () => this.at;
  setTimeout = (run: () => void, ms: number) => {
    const id = this.nextId++;
    this.due.set(id, { at: this.at + ms, run });
    return id;
  };
  clearTimeout = (handle: unknown) => {
    this.due.delete(handle as number);
  };
  async advance(ms: number): Promise<void> {
    const until = this.at + ms;
    for (;;) {
      const next = [...this.due.entries()].sort((a, b) => a[1].at - b[1].at)[0];
      if (!next || next[1].at > until) break;
      this.due.delete(next[0]);
      this.at = next[1].at;
      next[1].run();
      await settle();
    }
    this.at = until;
  }
}

const online = (ringId: string, userId: string): TPresenceUpdate => ({
  ringId,
  userId,
  status: 'online',
  lastSeen: null,
});
const offline = (ringId: string, userId: string, lastSeen: string): TPresenceUpdate => ({
  ringId,
  userId,
  status: 'offline',
  lastSeen,
});

function setup(
  send?: (batch: PresenceBatch<string>) => Promise<void>,
  wave = { waveIntervalMs: 1000, waveChanges: Number.POSITIVE_INFINITY },
) {
  const timers = new ManualTimers();
  const sent: Array<PresenceBatch<string> & { at: number }> = [];
  const errors: unknown[] = [];
  const batcher = new PresenceBatcher<string>(
    send ?? (async (batch) => void sent.push({ ...batch, at: timers.now() })),
    (error) => errors.push(error),
    timers,
    { delayMs: 100, intervalMs: 250, ...wave },
  );
  return { timers, sent, errors, batcher };
}

describe('PresenceBatcher', () => {
  it('sends the joins of one Ring that come within the delay as one batch, with their sockets', async () => {
    const { timers, sent, batcher } = setup();
    batcher.announce(online('r1', 'a'), 'socket-a');
    await timers.advance(40);
    batcher.announce(online('r1', 'b'), 'socket-b');
    batcher.announce(online('r1', 'c'), 'socket-c');
    await timers.advance(59);
    await settle();
    expect(sent).toEqual([]);
    await timers.advance(1);
    await settle();
    expect(sent).toEqual([
      {
        ringId: 'r1',
        updates: [online('r1', 'a'), online('r1', 'b'), online('r1', 'c')],
        joiners: ['socket-a', 'socket-b', 'socket-c'],
        at: 100,
      },
    ]);
  });

  it('keeps only the last change of a member within a batch', async () => {
    const { timers, sent, batcher } = setup();
    batcher.announce(online('r1', 'a'), 'socket-a');
    batcher.announce(online('r1', 'b'), 'socket-b');
    batcher.announce(offline('r1', 'a', '2026-11-27T10:00:00.000Z'));
    await timers.advance(100);
    await settle();
    expect(sent.map((b) => b.updates)).toEqual([
      [online('r1', 'b'), offline('r1', 'a', '2026-11-27T10:00:00.000Z')],
    ]);
    expect(sent[0]!.joiners).toEqual(['socket-a', 'socket-b']);
  });

  it('spaces the batches of a busy Ring by the interval, and sends a lone change after the delay', async () => {
    const { timers, sent, batcher } = setup();
    // A wave of joins, one every 20 ms for a second.
    for (let i = 0; i < 50; i++) {
      batcher.announce(online('r1', `m${i}`), `s${i}`);
      await timers.advance(20);
    }
    await timers.advance(1000);
    await settle();
    expect(sent.map((b) => b.at)).toEqual([100, 350, 600, 850, 1100]);
    expect(sent.flatMap((b) => b.updates.map((u) => u.userId))).toEqual(
      Array.from({ length: 50 }, (_, i) => `m${i}`),
    );
    // Quiet since: the next change goes after the delay only.
    batcher.announce(online('r1', 'late'), 'late');
    await timers.advance(100);
    await settle();
    expect(sent.at(-1)).toMatchObject({ at: timers.now(), updates: [online('r1', 'late')] });
  });

  it('spaces the batches by a second after a batch of a wave (10 changes or more), by the interval again after a small one', async () => {
    const { timers, sent, batcher } = setup(undefined, { waveIntervalMs: 1000, waveChanges: 10 });
    // Joins every 20 ms for two seconds: 5 in the first batch, then waves.
    for (let i = 0; i < 100; i++) {
      batcher.announce(online('r1', `m${i}`), `s${i}`);
      await timers.advance(20);
    }
    await timers.advance(2000);
    await settle();
    expect(sent.map((b) => [b.at, b.updates.length])).toEqual([
      [100, 5],
      [350, 13],
      [1350, 50],
      [2350, 32],
    ]);
    expect(sent.flatMap((b) => b.joiners)).toEqual(Array.from({ length: 100 }, (_, i) => `s${i}`));
    // Quiet for a while: a lone change goes after the delay; the next follows the usual interval.
    const quiet = timers.now();
    batcher.announce(online('r1', 'late'), 'late');
    await timers.advance(100);
    batcher.announce(online('r1', 'later'), 'later');
    await timers.advance(250);
    await settle();
    expect(sent.slice(4).map((b) => [b.at - quiet, b.updates.length])).toEqual([
      [100, 1],
      [350, 1],
    ]);
  });

  it('batches each Ring on its own', async () => {
    const { timers, sent, batcher } = setup();
    batcher.announce(online('r1', 'a'), 'sa');
    await timers.advance(120);
    batcher.announce(online('r1', 'b'), 'sb');
    batcher.announce(online('r2', 'c'), 'sc');
    await timers.advance(100);
    await settle();
    // r2 is not held back by r1's interval.
    expect(sent.map((b) => [b.ringId, b.at])).toEqual([
      ['r1', 100],
      ['r2', 220],
    ]);
    await timers.advance(130);
    await settle();
    expect(sent.map((b) => [b.ringId, b.at])).toEqual([
      ['r1', 100],
      ['r2', 220],
      ['r1', 350],
    ]);
  });

  it('sends the batches of a Ring in order when sending one is slow, and goes on after a failure', async () => {
    const releases: Array<() => void> = [];
    const order: string[] = [];
    const { timers, batcher, errors } = setup(async (batch) => {
      const names = batch.updates.map((u) => u.userId).join(',');
      order.push(`start ${names}`);
      await new Promise<void>((resolve) => releases.push(resolve));
      order.push(`end ${names}`);
      if (order.length === 2) throw new Error('adapter timeout');
    });
    batcher.announce(online('r1', 'a'), 'sa');
    await timers.advance(100);
    batcher.announce(offline('r1', 'a', '2026-11-27T10:00:00.000Z'));
    await timers.advance(250);
    await settle();
    expect(order).toEqual(['start a']);
    releases.shift()!();
    await settle();
    await settle();
    expect(order).toEqual(['start a', 'end a', 'start a']);
    releases.shift()!();
    await settle();
    expect(order).toEqual(['start a', 'end a', 'start a', 'end a']);
    expect(errors).toHaveLength(1);
  });

  it('sends nothing more once closed', async () => {
    const { timers, sent, batcher } = setup();
    batcher.announce(online('r1', 'a'), 'sa');
    await batcher.close();
    batcher.announce(online('r1', 'b'), 'sb');
    await timers.advance(1000);
    await settle();
    expect(sent).toEqual([]);
  });
});
