import { describe, expect, it } from 'vitest';
import { sameOriginUrl } from './same-origin';

describe('sameOriginUrl (issue 9, item 12)', () => {
  const site = 'https://site.fr';

  it('keeps URLs on the site origin, and reads paths relative to it', () => {
    expect(sameOriginUrl('https://site.fr/client?tab=subscription', site)).toBe(
      'https://site.fr/client?tab=subscription',
    );
    expect(sameOriginUrl('https://SITE.fr:443/client', site)).toBe('https://site.fr/client');
    expect(sameOriginUrl('/client?tab=subscription', site)).toBe('https://site.fr/client?tab=subscription');
    expect(sameOriginUrl('http://127.0.0.1:9999/client', 'http://127.0.0.1:9999')).toBe(
      'http://127.0.0.1:9999/client',
    );
  });

  it('refuses look-alike hosts that a text prefix check let through', () => {
    for (const evil of [
      'https://site.fr.evil.com/',
      'https://site.fr@evil.com/',
      'https://site.fr:pass@evil.com/',
      'https://site.fr.evil.com',
      'https://site.fr%2F@evil.com',
      '//evil.com/client',
      '/\\evil.com',
    ])
      expect(sameOriginUrl(evil, site), evil).toBeUndefined();
  });

  it('refuses other schemes, ports, credentials and unreadable input', () => {
    for (const other of [
      'http://site.fr/client',
      'https://site.fr:8443/client',
      'https://user@site.fr/client',
      'javascript:alert(1)',
      'data:text/html,hi',
      'https://',
      '',
      undefined,
      null,
    ])
      expect(sameOriginUrl(other, site), String(other)).toBeUndefined();
  });
});
