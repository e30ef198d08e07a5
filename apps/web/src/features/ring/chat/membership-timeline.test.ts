import { describe, expect, it } from 'vitest';
import { membershipTimeline } from './membership-timeline';

const live = (at: string, back = false) => ({
  key: `u1:${at}:${back ? 'back' : 'off'}`,
  at,
  username: 'Marc',
  back,
});
const logged = (at: string, back = false) => ({ memberId: 'u1', username: 'Marc', at, back });

describe('the room’s membership lines (issue 28)', () => {
  it('shows the signed deactivations and reactivations after a reload, in time order', () => {
    const lines = membershipTimeline(
      [],
      [logged('2026-11-29T10:05:00.000Z', true), logged('2026-11-29T10:00:00.000Z')],
    );
    expect(lines.map((l) => [l.username, l.back, l.at])).toEqual([
      ['Marc', false, '2026-11-29T10:00:00.000Z'],
      ['Marc', true, '2026-11-29T10:05:00.000Z'],
    ]);
    expect(lines[0]!.key).toMatch(/^log:/);
  });

  it('keeps a live notice until the log signs it, then shows the signed line only', () => {
    const notice = live('2026-11-29T10:00:00.000Z');
    expect(membershipTimeline([notice], [])).toEqual([notice]);
    const signed = membershipTimeline([notice], [logged('2026-11-29T10:02:00.000Z')]);
    expect(signed).toHaveLength(1);
    expect(signed[0]!.key).toMatch(/^log:/);
    // A reactivation signed later does not stand for the deactivation.
    expect(membershipTimeline([notice], [logged('2026-11-29T10:02:00.000Z', true)])).toHaveLength(2);
    // Nor does a link signed long before the live event (an earlier departure).
    expect(membershipTimeline([notice], [logged('2026-11-20T10:00:00.000Z')])).toHaveLength(2);
  });
});
