import { COOKIES } from '@securering/contract';
import { describe, expect, it } from 'vitest';
import { logSessionCookie } from './client-log';

describe('logSessionCookie', () => {
  it('names the session of the space the page belongs to (its CSRF cookie)', () => {
    expect(logSessionCookie('/admin')).toBe(COOKIES.adminCsrf);
    expect(logSessionCookie('/admin/logs')).toBe(COOKIES.adminCsrf);
    expect(logSessionCookie('/ring')).toBe(COOKIES.ringCsrf);
    expect(logSessionCookie('/ring/room')).toBe(COOKIES.ringCsrf);
    expect(logSessionCookie('/client')).toBe(COOKIES.customerCsrf);
    expect(logSessionCookie('/payment-success')).toBe(COOKIES.customerCsrf);
    expect(logSessionCookie('/administration')).toBe(COOKIES.customerCsrf);
  });
});
