import { describe, expect, it } from 'vitest';
import { redactUrl } from './redact-url';

describe('redactUrl', () => {
  it('hides the values of token-bearing query parameters', () => {
    expect(redactUrl('/api/auth/verify-email.php?token=abcDEF123')).toBe(
      '/api/auth/verify-email.php?token=[redacted]',
    );
    expect(redactUrl('/reset-password?token=xyz&lang=fr')).toBe('/reset-password?token=[redacted]&lang=fr');
    expect(redactUrl('/ring-access?invite=ABCD-1234')).toBe('/ring-access?invite=[redacted]');
    expect(redactUrl('/ring-access?reset=m3mb3r-t0k3n')).toBe('/ring-access?reset=[redacted]');
    expect(redactUrl('/socket.io/?EIO=4&transport=polling&stream_token=s3cr3t')).toBe(
      '/socket.io/?EIO=4&transport=polling&stream_token=[redacted]',
    );
    expect(redactUrl('/x?a=1&CODE=42&verification_token=t&invite_code=c')).toBe(
      '/x?a=1&CODE=[redacted]&verification_token=[redacted]&invite_code=[redacted]',
    );
    expect(redactUrl('/x?%74oken=encoded-name')).toBe('/x?%74oken=[redacted]');
  });

  it('keeps everything else as it was', () => {
    for (const url of [
      '/api/customer/rings.php',
      '/api/customer/rings.php?ring_id=0192-abc',
      '/api/admin/logs.php?page=2&search=token',
      '/x?token',
      '/x?',
    ]) {
      expect(redactUrl(url)).toBe(url);
    }
  });

  it('survives malformed escapes', () => {
    expect(redactUrl('/x?%E0%A4%A=1&token=t')).toBe('/x?%E0%A4%A=1&token=[redacted]');
  });
});
