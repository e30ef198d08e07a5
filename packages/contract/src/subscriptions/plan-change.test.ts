import { describe, expect, it } from 'vitest';
import { typographyViolations } from '../text/typography';
import { describePlanChange, planChangeKind } from './plan-change';

describe('planChangeKind', () => {
  it('extends the same plan and replaces another one', () => {
    expect(planChangeKind('p1', 'p1')).toBe('extend');
    expect(planChangeKind('p1', 'p2')).toBe('replace');
  });
});

describe('describePlanChange', () => {
  const base = { currentPlanName: 'Starter', currentEndLabel: '22 décembre 2026', renewsByCard: false };

  it('says the time left is lost when another plan replaces the current one', () => {
    expect(describePlanChange({ ...base, kind: 'replace', daysLeft: 20 })).toBe(
      'Votre plan Starter (jusqu’au 22 décembre 2026) sera remplacé dès le paiement. Les 20\u00a0jours restants sont perdus, ni remboursés ni reportés.',
    );
  });

  it('says the time left is kept when the same plan is paid again, and one day is singular', () => {
    expect(describePlanChange({ ...base, kind: 'extend', daysLeft: 1 })).toBe(
      'Vous avez déjà le plan Starter jusqu’au 22 décembre 2026. La période payée s’ajoute à la suite. Le jour restant est conservé.',
    );
  });

  it('says the card renewal stops, in correct French typography', () => {
    for (const kind of ['extend', 'replace'] as const) {
      const text = describePlanChange({ ...base, kind, daysLeft: 3, renewsByCard: true });
      expect(text).toMatch(/Son prélèvement automatique par carte est arrêté\.$/);
      expect(typographyViolations(text)).toEqual([]);
    }
  });
});
