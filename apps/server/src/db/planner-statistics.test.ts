import { describe, expect, it } from 'vitest';
import { plannerStatisticsWarning } from './planner-statistics';

describe('plannerStatisticsWarning', () => {
  it('says nothing while autovacuum keeps the statistics', () => {
    expect(plannerStatisticsWarning('on')).toBeUndefined();
  });

  it('warns in French when autovacuum is off or its setting unreadable', () => {
    for (const value of ['off', undefined]) {
      expect(plannerStatisticsWarning(value)).toMatch(/^PostgreSQL : autovacuum est désactivé.*ANALYZE/);
    }
  });
});
