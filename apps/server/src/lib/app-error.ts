import { MESSAGES } from '@securering/contract';
import type { z } from 'zod';

/** The one error type: a status and a French message safe to show to the caller. */
export class AppError extends Error {
  constructor(
    public readonly statusCode: number,
    message: string,
    public readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (message: string = MESSAGES.invalidRequest, extra?: Record<string, unknown>) =>
  new AppError(400, message, extra);
export const unauthorized = (message: string = MESSAGES.notAuthenticated) => new AppError(401, message);
export const forbidden = (message: string = MESSAGES.forbidden) => new AppError(403, message);
export const notFound = (message: string = MESSAGES.notFound) => new AppError(404, message);
export const conflict = (message: string) => new AppError(409, message);
export const tooManyRequests = (retryAfterSec: number) =>
  new AppError(429, MESSAGES.tooManyRequests, { retryAfterSec });
/** A dependency (database, Redis) is down: the caller may try again shortly (issue 26). */
export const serviceUnavailable = (retryAfterSec: number) =>
  new AppError(503, MESSAGES.serviceUnavailable, { retryAfterSec });

/** Parses input with a contract schema; the first issue's message becomes the French error. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  throw invalidInput(result.error);
}

/**
 * The 400 of input a contract schema refused: its first issue's message when the contract gives a
 * French one, « Requête invalide » otherwise.
 */
export function invalidInput(error: z.ZodError): AppError {
  const issue = error.issues[0];
  // Zod's built-in English messages are replaced; contract schemas carry French ones where it matters.
  const message = issue && !isDefaultZodMessage(issue.message) ? issue.message : MESSAGES.invalidRequest;
  return badRequest(message);
}

function isDefaultZodMessage(message: string): boolean {
  return /^(Invalid|Expected|Too (small|big)|Required|Unrecognized)/i.test(message);
}
