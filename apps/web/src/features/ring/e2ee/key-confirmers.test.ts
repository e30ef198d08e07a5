import { describe, expect, it } from 'vitest';
import { keyPendingNote, whoMayConfirm } from './key-confirmers';

describe('whoMayConfirm', () => {
  it('names the owner and Ring admins the log lists, joined with « ou »', () => {
    expect(whoMayConfirm([{ username: 'Claire Fontaine' }])).toBe('Claire Fontaine');
    expect(whoMayConfirm([{ username: 'Claire Fontaine' }, { username: 'marc' }])).toBe('Claire Fontaine ou marc');
    expect(whoMayConfirm([{ username: 'Claire' }, { username: 'marc' }, { username: 'zoé' }])).toBe(
      'Claire, marc ou zoé',
    );
  });

  it('falls back to the roles when the log names nobody (not verified yet)', () => {
    expect(whoMayConfirm([])).toBe('le propriétaire ou un admin du Ring');
  });

  it('says it in the composer with French typography', () => {
    expect(keyPendingNote([{ username: 'Claire' }])).toBe(
      'Envoi impossible pour l’instant\u202f: vos nouvelles clés attendent la confirmation de Claire.',
    );
  });
});
