import { describe, expect, it } from 'vitest';
import { LackingSharesByRevision, lackingForCaller, type LackingShare } from './lacking-shares-by-revision';

const row = (id: string, epoch: number): LackingShare => ({
  id,
  epoch,
  first_readable_epoch: 1,
  admitted_seq: 1,
  key_version: 1,
  public_x25519: `x-${id}`,
  public_ed25519: `e-${id}`,
});

/** A Ring-wide read that records its calls and answers what `answer` says at call time. */
function recordingRead(answer: (ringId: string, call: number) => Promise<LackingShare[] | undefined>) {
  const calls: string[] = [];
  const read = (ringId: string) => {
    calls.push(ringId);
    return answer(ringId, calls.length);
  };
  return { calls, read };
}

describe('LackingSharesByRevision', () => {
  it('reads a Ring once per revision, shares the read in flight, and reads again when the revision moves', async () => {
    const { calls, read } = recordingRead(async (_, call) => [row(`m${call}`, 1)]);
    const lists = new LackingSharesByRevision(read);
    const [a, b] = await Promise.all([lists.get('r1', 3), lists.get('r1', 3)]);
    expect(a).toEqual([row('m1', 1)]);
    expect(b).toBe(a);
    expect(await lists.get('r1', 3)).toBe(a);
    expect(calls).toEqual(['r1']);
    expect(await lists.get('r1', 4)).toEqual([row('m2', 1)]);
    expect(await lists.get('r2', 4)).toEqual([row('m3', 1)]);
    expect(calls).toEqual(['r1', 'r1', 'r2']);
  });

  it('does not let a request of an older revision replace a newer list', async () => {
    const { calls, read } = recordingRead(async (_, call) => [row(`m${call}`, 1)]);
    const lists = new LackingSharesByRevision(read);
    expect(await lists.get('r1', 5)).toEqual([row('m1', 1)]);
    // A request that read the Ring row just before the change gets a list read now (fresher).
    expect(await lists.get('r1', 4)).toEqual([row('m2', 1)]);
    expect(await lists.get('r1', 5)).toEqual([row('m1', 1)]);
    expect(calls).toHaveLength(2);
  });

  it('keeps no failed read, and passes a list too long to keep as undefined', async () => {
    let fail = true;
    const { calls, read } = recordingRead(async () => {
      if (fail) throw new Error('database down');
      return undefined;
    });
    const lists = new LackingSharesByRevision(read);
    await expect(lists.get('r1', 1)).rejects.toThrow('database down');
    fail = false;
    expect(await lists.get('r1', 1)).toBeUndefined();
    expect(calls).toHaveLength(2);
  });

  it('keeps the most recently asked Rings only', async () => {
    const { calls, read } = recordingRead(async () => []);
    const lists = new LackingSharesByRevision(read, 2);
    await lists.get('r1', 1);
    await lists.get('r2', 1);
    await lists.get('r1', 1);
    await lists.get('r3', 1);
    // r2 was the least recently asked: forgotten; r1 and r3 kept.
    await lists.get('r1', 1);
    await lists.get('r3', 1);
    expect(calls).toEqual(['r1', 'r2', 'r3']);
    await lists.get('r2', 1);
    expect(calls).toEqual(['r1', 'r2', 'r3', 'r2']);
  });
});

describe('lackingForCaller', () => {
  it('keeps the other members and the epochs the caller holds, in order', () => {
    const ringWide = [row('a', 1), row('a', 2), row('b', 1), row('b', 3), row('c', 2)];
    expect(lackingForCaller(ringWide, 'b', new Set([1, 2]))).toEqual([row('a', 1), row('a', 2), row('c', 2)]);
    expect(lackingForCaller(ringWide, 'a', new Set())).toEqual([]);
  });
});
