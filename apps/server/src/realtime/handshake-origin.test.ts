import { describe, expect, it } from 'vitest';
import { isHandshakeOriginAllowed } from './realtime-server';

describe('isHandshakeOriginAllowed (cross-site WebSocket hijacking)', () => {
  const publicUrl = 'https://chat.example.fr';
  const handshake = (origin: string | undefined, host = 'chat.example.fr') => ({
    headers: { host, ...(origin === undefined ? {} : { origin }) },
  });

  it('lets the site’s own pages in: the Host they were sent to, or PUBLIC_URL', () => {
    expect(isHandshakeOriginAllowed(handshake('https://chat.example.fr'), publicUrl)).toBe(true);
    expect(isHandshakeOriginAllowed(handshake('http://127.0.0.1:4000', '127.0.0.1:4000'), publicUrl)).toBe(
      true,
    );
    expect(isHandshakeOriginAllowed(handshake('https://chat.example.fr', 'backend:3000'), publicUrl)).toBe(
      true,
    );
    // No Origin: not a cross-site browser request (those always carry one).
    expect(isHandshakeOriginAllowed(handshake(undefined), publicUrl)).toBe(true);
  });

  it('refuses other sites, look-alikes, opaque and malformed origins', () => {
    for (const origin of [
      'https://evil.example',
      'https://chat.example.fr.evil.example',
      'https://chat.example.fr:8443',
      'null',
      'file://',
      'not a url',
    ])
      expect(isHandshakeOriginAllowed(handshake(origin), publicUrl), origin).toBe(false);
  });
});
