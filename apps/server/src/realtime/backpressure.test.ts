import { afterEach, describe, expect, it, vi } from 'vitest';
import { BACKPRESSURE_SWEEP_MS, BackpressureGuard, broadcastSweepBytes, bufferedBytes } from './backpressure';

/** A socket over a fake engine.io connection: its queue and its websocket's buffer are set by hand. */
function fakeSocket(name: string, transport: 'websocket' | 'polling' = 'websocket') {
  const ws = { bufferedAmount: 0, terminate: vi.fn() };
  const conn = {
    writeBuffer: [] as Array<{ data?: unknown }>,
    transport: { name: transport, socket: transport === 'websocket' ? ws : undefined },
    close: vi.fn(),
  };
  return { name, conn, ws };
}
type FakeSocket = ReturnType<typeof fakeSocket>;

const LIMIT = 1000;

function guardOf(sockets: FakeSocket[]) {
  const overflows: Array<[string, number]> = [];
  const guard = new BackpressureGuard(
    () => sockets,
    LIMIT,
    (socket, bytes) => overflows.push([socket.name, bytes]),
  );
  return { guard, overflows };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('bufferedBytes', () => {
  it('adds engine.io’s queue (text and binary) to the websocket’s buffer', () => {
    const socket = fakeSocket('a');
    socket.conn.writeBuffer.push({ data: 'x'.repeat(10) }, { data: Buffer.alloc(5) }, {});
    socket.ws.bufferedAmount = 100;
    expect(bufferedBytes(socket.conn)).toBe(115);
    // Polling: only the queue (no websocket buffer).
    const polling = fakeSocket('b', 'polling');
    polling.conn.writeBuffer.push({ data: 'y'.repeat(7) });
    expect(bufferedBytes(polling.conn)).toBe(7);
  });
});

describe('broadcastSweepBytes', () => {
  it('is a quarter of the limit, at least one byte', () => {
    expect(broadcastSweepBytes(4096 * 1024)).toBe(1024 * 1024);
    expect(broadcastSweepBytes(1000)).toBe(250);
    expect(broadcastSweepBytes(2)).toBe(1);
  });
});

describe('BackpressureGuard', () => {
  it('cuts only the sockets past the limit (websocket terminated, polling closed without flushing), once each', () => {
    const [calm, full, stalled, polling] = ['calm', 'full', 'stalled', 'polling'].map((name) =>
      fakeSocket(name, name === 'polling' ? 'polling' : 'websocket'),
    ) as [FakeSocket, FakeSocket, FakeSocket, FakeSocket];
    full.ws.bufferedAmount = LIMIT; // at the limit: kept
    stalled.ws.bufferedAmount = LIMIT - 10;
    stalled.conn.writeBuffer.push({ data: 'z'.repeat(11) });
    polling.conn.writeBuffer.push({ data: 'p'.repeat(LIMIT + 1) });
    const { guard, overflows } = guardOf([calm, full, stalled, polling]);

    expect(guard.sweep()).toBe(2);
    expect(overflows).toEqual([
      ['stalled', LIMIT + 1],
      ['polling', LIMIT + 1],
    ]);
    expect(stalled.ws.terminate).toHaveBeenCalledOnce();
    expect(polling.conn.close).toHaveBeenCalledWith(true);
    for (const socket of [calm, full]) expect(socket.ws.terminate).not.toHaveBeenCalled();
    // Until their close reaches the socket list, cut sockets are not cut (nor reported) again.
    expect(guard.sweep()).toBe(0);
    expect(overflows).toHaveLength(2);
    expect(stalled.ws.terminate).toHaveBeenCalledOnce();
  });

  it('checks every socket on a timer (what is written to one socket alone), until stopped', () => {
    vi.useFakeTimers();
    const socket = fakeSocket('a');
    const { guard, overflows } = guardOf([socket]);
    guard.start();
    socket.ws.bufferedAmount = LIMIT + 1;
    vi.advanceTimersByTime(BACKPRESSURE_SWEEP_MS - 1);
    expect(overflows).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(overflows).toEqual([['a', LIMIT + 1]]);

    const other = fakeSocket('b');
    const stopped = guardOf([other]);
    stopped.guard.start();
    stopped.guard.stop();
    other.ws.bufferedAmount = LIMIT + 1;
    vi.advanceTimersByTime(10 * BACKPRESSURE_SWEEP_MS);
    expect(stopped.overflows).toEqual([]);
    guard.stop();
  });

  it('checks every socket at once when the bytes broadcast since the last check reach a quarter of the limit', () => {
    const socket = fakeSocket('a');
    const { guard, overflows } = guardOf([socket]);
    socket.ws.bufferedAmount = LIMIT + 1;
    guard.noteBroadcast(100);
    guard.noteBroadcast(149);
    expect(overflows).toEqual([]);
    guard.noteBroadcast(1);
    expect(overflows).toEqual([['a', LIMIT + 1]]);
  });

  it('whatever the rate of broadcasts, a socket that stops reading never holds more than 1.25 × the limit plus one packet', () => {
    for (const packetBytes of [1, 37, 249, 250, 400, 999, 3000]) {
      const stalled = fakeSocket('stalled');
      const reading = fakeSocket('reading');
      const { guard, overflows } = guardOf([reading, stalled]);
      let held = 0;
      for (let i = 0; i < 10_000 && overflows.length === 0; i++) {
        // Written to both; only the stalled one keeps it. No timer runs: broadcasts alone bound it.
        stalled.ws.bufferedAmount += packetBytes;
        held = Math.max(held, stalled.ws.bufferedAmount);
        guard.noteBroadcast(packetBytes);
      }
      expect(
        overflows.map(([name]) => name),
        `${packetBytes} B`,
      ).toEqual(['stalled']);
      expect(held, `${packetBytes} B`).toBeLessThanOrEqual(1.25 * LIMIT + packetBytes);
    }
  });
});
