import { describe, expect, it } from 'vitest';
import { placeClientLog } from './client-log.policy';

describe('placeClientLog (issue 9, item 11)', () => {
  it('files anonymous reports under client, at warning at most', () => {
    expect(placeClientLog({ level: 'critical', category: 'admin' }, undefined)).toEqual({
      level: 'warning',
      category: 'client',
    });
    expect(placeClientLog({ level: 'error', category: 'payment' }, undefined)).toEqual({
      level: 'warning',
      category: 'client',
    });
    expect(placeClientLog({ level: 'info', category: 'auth' }, undefined)).toEqual({
      level: 'info',
      category: 'client',
    });
  });

  it('keeps the category of a signed-in caller, caps at error, and keeps admin for admins', () => {
    expect(placeClientLog({ level: 'critical', category: 'security' }, 'ring')).toEqual({
      level: 'error',
      category: 'security',
    });
    expect(placeClientLog({ level: 'warning', category: 'payment' }, 'customer')).toEqual({
      level: 'warning',
      category: 'payment',
    });
    expect(placeClientLog({ level: 'error', category: 'admin' }, 'customer')).toEqual({
      level: 'error',
      category: 'client',
    });
    expect(placeClientLog({ level: 'error', category: 'admin' }, 'admin')).toEqual({
      level: 'error',
      category: 'admin',
    });
  });
});
