import { MESSAGES } from '@securering/contract';
import { describe, expect, it } from 'vitest';
import type { RingRow } from '../modules/rings/ring.repository';
import { SharedRingRows, SocketEventLimiter, socketFailure } from './socket-events';

describe('SocketEventLimiter', () => {
  it('allows a member perMinute events of one name per minute, then refuses until the next minute', () => {
    let now = 60_000 * 10;
    const limiter = new SocketEventLimiter(() => now);
    const results = Array.from({ length: 5 }, () => limiter.allow('m1', 'call_offer', 3));
    expect(results).toEqual([true, true, true, false, false]);
    // Another member and another event have their own budget.
    expect(limiter.allow('m2', 'call_offer', 3)).toBe(true);
    expect(limiter.allow('m1', 'request_keys', 3)).toBe(true);
    now += 60_000;
    expect(limiter.allow('m1', 'call_offer', 3)).toBe(true);
  });

  it('refuses everything when the budget is zero', () => {
    expect(new SocketEventLimiter().allow('m1', 'x', 0)).toBe(false);
  });
});

describe('socketFailure', () => {
  const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

  it('says in French that the service is unavailable when the database or Redis is down or too busy', () => {
    expect(socketFailure(new Error('timeout exceeded when trying to connect'))).toEqual({
      cause: 'database',
      error: MESSAGES.serviceUnavailable,
    });
    expect(socketFailure(withCode('canceling statement due to statement timeout', '57014'))).toEqual({
      cause: 'database',
      error: MESSAGES.serviceUnavailable,
    });
    expect(socketFailure(new Error('Connection is closed.'))).toEqual({
      cause: 'redis',
      error: MESSAGES.serviceUnavailable,
    });
  });

  it('says the disk is full, and keeps the generic error for a bug', () => {
    expect(socketFailure(withCode('database or disk is full', 'SQLITE_FULL'))).toEqual({
      cause: 'disk_full',
      error: MESSAGES.diskFull,
    });
    expect(socketFailure(new TypeError('x is undefined'))).toEqual({
      cause: 'bug',
      error: MESSAGES.internalError,
    });
  });
});

describe('SharedRingRows', () => {
  const row = (id: string, currentEpoch: number) => ({ id, current_epoch: currentEpoch }) as RingRow;

  it('reads a Ring once for all the sockets asking together, and again once the row is too old', async () => {
    const reads: string[] = [];
    let epoch = 1;
    const rings = new SharedRingRows(async (id) => {
      reads.push(id);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return row(id, epoch);
    }, 1000);
    const together = await Promise.all([rings.get('r1', 0), rings.get('r1', 10), rings.get('r1', 20)]);
    expect(reads).toEqual(['r1']);
    expect(together.map((ring) => ring?.current_epoch)).toEqual([1, 1, 1]);
    epoch = 2;
    expect((await rings.get('r1', 999))?.current_epoch).toBe(1);
    expect(reads).toEqual(['r1']);
    expect((await rings.get('r1', 1000))?.current_epoch).toBe(2);
    expect((await rings.get('r2', 1000))?.id).toBe('r2');
    expect(reads).toEqual(['r1', 'r1', 'r2']);
  });

  it('keeps "no longer serviceable" as an answer until it is too old', async () => {
    let serviceable = false;
    const rings = new SharedRingRows(async (id) => (serviceable ? row(id, 3) : undefined), 1000);
    expect(await rings.get('r1', 0)).toBeUndefined();
    serviceable = true;
    expect(await rings.get('r1', 999)).toBeUndefined();
    expect((await rings.get('r1', 1000))?.current_epoch).toBe(3);
  });

  it('reads the Ring now when asked for a fresh row, and keeps it for the others', async () => {
    let epoch = 1;
    const reads: number[] = [];
    const rings = new SharedRingRows(async (id) => (reads.push(epoch), row(id, epoch)), 1000);
    expect((await rings.get('r1', 0))?.current_epoch).toBe(1);
    epoch = 2;
    expect((await rings.get('r1', 100))?.current_epoch).toBe(1);
    expect((await rings.fresh('r1', 200))?.current_epoch).toBe(2);
    expect((await rings.get('r1', 300))?.current_epoch).toBe(2);
    expect(reads).toEqual([1, 2]);
  });

  it('does not keep a failed read', async () => {
    let fail = true;
    const rings = new SharedRingRows(async (id) => {
      if (fail) throw new Error('database down');
      return row(id, 1);
    }, 1000);
    await expect(rings.get('r1', 0)).rejects.toThrow('database down');
    fail = false;
    expect((await rings.get('r1', 1))?.current_epoch).toBe(1);
  });
});
