import { describe, expect, it } from 'vitest';
import { groupedNoticeTitle, joinNoticeGroup } from './notice-groups';

describe('notice groups', () => {
  it('joins messages arriving while the notice is on screen, starts over after', () => {
    const first = joinNoticeGroup(undefined, 1000, 5000);
    expect(first).toEqual({ count: 1, at: 1000 });
    const second = joinNoticeGroup(first, 5999, 5000);
    expect(second).toEqual({ count: 2, at: 5999 });
    expect(joinNoticeGroup(second, 9000, 5000)).toEqual({ count: 3, at: 9000 });
    expect(joinNoticeGroup(second, 10_999, 5000)).toEqual({ count: 1, at: 10_999 });
  });

  it('titles a group with its count past one message', () => {
    expect(groupedNoticeTitle('Message privé de alice', 1)).toBe('Message privé de alice');
    expect(groupedNoticeTitle('Salon du ring', 3)).toBe('Salon du ring · 3 nouveaux messages');
  });
});
