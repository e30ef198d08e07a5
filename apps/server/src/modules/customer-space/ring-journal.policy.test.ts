import { describe, expect, it } from 'vitest';
import { describeEvent, describeLink, mergeNewestFirst, settingLabels } from './ring-journal.policy';

const names = new Map([
  ['a', 'alice'],
  ['b', 'bob'],
]);
const link = (type: string, body: object, author = 'a') => ({
  seq: 1,
  type,
  author_member_id: author,
  link: JSON.stringify({ type, author, body, sig: 'x' }),
  created_at: '2026-11-29T10:00:00.000Z',
});

describe('ring journal wording', () => {
  it('names each change of the signed log in French', () => {
    expect(describeLink(link('admit', { member: { id: 'b', username: 'bob' }, role: 'admin' }), names)).toBe(
      'alice a admis bob comme administrateur',
    );
    expect(describeLink(link('role', { memberId: 'b', role: 'member' }), names)).toBe(
      'alice a nommé bob membre',
    );
    expect(describeLink(link('reactivate', { memberId: 'b' }), names)).toBe('alice a réactivé bob');
    expect(describeLink(link('deactivate', { memberId: 'b' }), names)).toBe('alice a retiré bob du Ring');
    expect(describeLink(link('key_change', { memberId: 'b' }, 'b'), names)).toBe('bob a changé ses clés');
    // A refused newcomer the server no longer lists keeps the name the link carries.
    expect(describeLink(link('refuse', { memberId: 'z', username: 'zoé' }), names)).toBe(
      'zoé a été refusé par alice',
    );
    expect(describeLink(link('deactivate', { memberId: 'gone' }), names)).toBe(
      'alice a retiré un membre inconnu du Ring',
    );
    expect(describeLink({ ...link('level', {}), link: 'not json' }, names)).toBe(
      'Niveau de sécurité changé (par alice)',
    );
    expect(describeLink(link('reading', { typing: true, receipts: false }), names)).toBe(
      'Indicateurs de saisie activés, accusés de lecture désactivés (par alice)',
    );
  });

  it('names the server’s records and the settings once each', () => {
    expect(settingLabels(['screen_protection_level', 'screen_devtools_protection', 'allow_voice'])).toEqual([
      'protection anti-capture',
      'appels vocaux',
    ]);
    const row = { member_id: null, member_username: null, created_at: '2026-11-29T10:00:00.000Z' };
    expect(describeEvent({ ...row, kind: 'settings_changed', details: '{"fields":["name"]}' }, names)).toBe(
      'Paramètres modifiés\u202f: nom',
    );
    expect(
      describeEvent({ ...row, kind: 'invitation_removed', member_username: 'dave', details: null }, names),
    ).toBe('Invitation de dave supprimée');
  });

  it('merges two newest-first lists newest first', () => {
    const entry = (at: string, seq: number | null) => ({
      at,
      seq,
      source: 'log' as const,
      kind: 'x',
      text: at,
    });
    const merged = mergeNewestFirst(
      [entry('2026-01-03', 2), entry('2026-01-01', 1)],
      [entry('2026-01-02', null), entry('2026-01-01', null)],
      3,
    );
    expect(merged.map((e) => [e.at, e.seq])).toEqual([
      ['2026-01-03', 2],
      ['2026-01-02', null],
      ['2026-01-01', 1],
    ]);
  });
});
