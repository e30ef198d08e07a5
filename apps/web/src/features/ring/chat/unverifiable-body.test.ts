import { CHAT_MESSAGES } from '@securering/contract';
import { describe, expect, it } from 'vitest';
import { unverifiableLabel } from './unverifiable-body';

describe('a message that does not verify (issue 28)', () => {
  it('reads as pending confirmation while its sender’s new key waits, as a forgery otherwise', () => {
    const pending = [{ memberId: 'lea', at: '2026-11-29T10:00:00.000Z', pending: true }];
    expect(unverifiableLabel(pending, 'lea', 'Léa')).toEqual({
      pending: true,
      text: 'En attente de confirmation de la nouvelle clé de Léa',
    });
    // Another member's message, or Léa's once the log confirmed her key: the forgery label.
    expect(unverifiableLabel(pending, 'marc', 'marc')).toEqual({
      pending: false,
      text: CHAT_MESSAGES.unverifiable,
    });
    expect(unverifiableLabel([{ ...pending[0]!, pending: false }], 'lea', 'Léa').text).toBe(
      'Message non vérifiable',
    );
    expect(unverifiableLabel([], 'lea', 'Léa').pending).toBe(false);
  });
});
