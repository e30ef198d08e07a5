import { describe, expect, it } from 'vitest';
import { processErrorOutcome, unavailableDependency } from './dependency-errors';

const withProps = (message: string, props: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), props);

describe('unavailableDependency', () => {
  it('recognises Redis outages (ioredis errors)', () => {
    const maxRetries = withProps('Reached the max retries per request limit (which is 1).', {
      name: 'MaxRetriesPerRequestError',
    });
    expect(unavailableDependency(maxRetries)).toBe('redis');
    expect(unavailableDependency(new Error('Connection is closed.'))).toBe('redis');
    expect(unavailableDependency(new Error('Command timed out'))).toBe('redis');
  });

  it('recognises PostgreSQL outages (lost connections, refusals, shutdowns, pool timeouts)', () => {
    expect(unavailableDependency(new Error('Connection terminated unexpectedly'))).toBe('database');
    expect(unavailableDependency(new Error('timeout exceeded when trying to connect'))).toBe('database');
    expect(
      unavailableDependency(withProps('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED' })),
    ).toBe('database');
    expect(unavailableDependency(withProps('terminating connection', { code: '57P01' }))).toBe('database');
    // A statement cancelled by statement_timeout (the database too busy to answer in time).
    expect(
      unavailableDependency(withProps('canceling statement due to statement timeout', { code: '57014' })),
    ).toBe('database');
    expect(unavailableDependency(withProps('connection failure', { code: '08006' }))).toBe('database');
    expect(unavailableDependency(withProps('database is locked', { code: 'SQLITE_BUSY' }))).toBe('database');
  });

  it('leaves bugs and data errors alone (they stay 500s)', () => {
    expect(unavailableDependency(new TypeError('x is undefined'))).toBeUndefined();
    expect(unavailableDependency(withProps('duplicate key', { code: '23505' }))).toBeUndefined();
    expect(unavailableDependency('text')).toBeUndefined();
    expect(unavailableDependency(undefined)).toBeUndefined();
  });
});

describe('processErrorOutcome', () => {
  it('never ends the process for a Redis or database outage, rejected or thrown', () => {
    const redis = withProps('Reached the max retries per request limit', {
      name: 'MaxRetriesPerRequestError',
    });
    expect(processErrorOutcome(redis, 'rejection')).toBe('continue');
    expect(processErrorOutcome(redis, 'exception')).toBe('continue');
    expect(processErrorOutcome(new Error('Connection terminated unexpectedly'), 'exception')).toBe(
      'continue',
    );
  });

  it('exits only for an unknown exception; an unknown rejection is logged and left', () => {
    expect(processErrorOutcome(new TypeError('bug'), 'exception')).toBe('exit');
    expect(processErrorOutcome(new TypeError('bug'), 'rejection')).toBe('continue');
  });
});
