import type { FastifyInstance } from 'fastify';
import { badRequest } from '../lib/app-error';

/**
 * True when a parsed body, query or params value holds a NUL character (U+0000) in any string or
 * key. Walks with an explicit stack: a deeply nested body must not exhaust the call stack.
 */
export function containsNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return true;
    } else if (Array.isArray(current)) {
      for (const item of current) stack.push(item);
    } else if (current !== null && typeof current === 'object' && !Buffer.isBuffer(current)) {
      for (const [key, item] of Object.entries(current)) {
        if (key.includes('\u0000')) return true;
        stack.push(item);
      }
    }
  }
  return false;
}

/**
 * Refuses any request whose body, query string or path parameters carry a NUL character, before
 * routes run: no field needs one, and PostgreSQL cannot store it in text (the query would fail and
 * the caller get a 500 instead of "Requête invalide").
 */
export function registerInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    if (containsNul(request.body) || containsNul(request.query) || containsNul(request.params)) {
      done(badRequest());
      return;
    }
    done();
  });
}
