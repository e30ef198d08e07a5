import { COOKIES } from '@securering/contract';
import { describe, expect, it } from 'vitest';
import { logSessionCookie } from './client-log';

describe('logSessionCookie', () => {
  it('sends the bearer of the space the page belongs to', () => {
    expect(logSessionCookie('/admin')).toBe(COOKIES.adminToken);
    expect(logSessionCookie('/admin/logs')).toBe(COOKIES.adminToken);
    expect(logSessionCookie('/ring')).toBe(COOKIES.ringToken);
    expect(logSessionCookie('/ring/room')).toBe(COOKIES.ringToken);
    expect(logSessionCookie('/client')).toBe(COOKIES.customerToken);
    expect(logSessionCookie('/payment-success')).toBe(COOKIES.customerToken);
    expect(logSessionCookie('/administration')).toBe(COOKIES.customerToken);
  });
});
