import { describe, expect, it } from 'vitest';
import { ApiError } from './api-client';
import { apiErrorMessage } from './api-error-message';

describe('apiErrorMessage', () => {
  it('shows the server text of an error answer', () => {
    expect(apiErrorMessage(new ApiError('Plan introuvable', 404), 'Échec.')).toBe('Plan introuvable');
  });

  it('uses the network message when the server could not be reached', () => {
    const offline = new ApiError('Erreur de connexion au serveur', 0);
    expect(apiErrorMessage(offline, 'Échec.')).toBe('Erreur de communication avec le serveur.');
    expect(apiErrorMessage(offline, 'Échec.', 'Erreur de connexion')).toBe('Erreur de connexion');
  });

  it('falls back on an empty text, an unexpected answer or any other error', () => {
    expect(apiErrorMessage(new ApiError('', 500), 'Échec.')).toBe('Échec.');
    expect(apiErrorMessage(new ApiError('Réponse inattendue du serveur', 200, {}, 'data'), 'Échec.')).toBe(
      'Échec.',
    );
    expect(apiErrorMessage(new Error('boom'), 'Échec.')).toBe('Échec.');
    expect(apiErrorMessage(undefined, 'Échec.')).toBe('Échec.');
  });
});
