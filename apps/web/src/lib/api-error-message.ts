import { ApiError } from './api-client';

const NETWORK_MESSAGE = 'Erreur de communication avec le serveur.';

/**
 * The message to show for a failed call: `networkMessage` when the server could not be reached,
 * the server's own text when it answered with an error, otherwise (no text, an answer that does not
 * match the contract, any other error) the caller's fallback.
 */
export function apiErrorMessage(error: unknown, fallback: string, networkMessage = NETWORK_MESSAGE): string {
  if (error instanceof ApiError) {
    if (error.kind === 'network') return networkMessage;
    if (error.kind === 'http' && error.message) return error.message;
  }
  return fallback;
}
