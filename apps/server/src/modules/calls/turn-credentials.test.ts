import { describe, expect, it } from 'vitest';
import { iceServersFor, turnCredential } from './turn-credentials';

describe('turnCredential', () => {
  it('matches the TURN REST API scheme (vector computed with openssl dgst -sha1 -hmac)', () => {
    // printf '1795507684:member1' | openssl dgst -binary -sha1 -hmac s3cret | base64
    const nowMs = (1795507684 - 600) * 1000 + 999;
    expect(turnCredential('s3cret', 'member1', nowMs, 600)).toEqual({
      username: '1795507684:member1',
      credential: 'XiqzZzq/P1kQvmkM5x7jPoc7H2w=',
      expiresAt: 1795507684,
    });
  });
});

describe('iceServersFor', () => {
  const now = Date.parse('2026-11-24T10:00:00Z');

  it('lists STUN as is and TURN with a credential that expires after the ttl', () => {
    const result = iceServersFor(
      {
        urls: ['stun:stun.example.net:3478', 'turn:127.0.0.1:3478', 'turns:turn.example.net:5349'],
        secret: 'k',
        ttlSec: 3600,
      },
      'm1',
      now,
    );
    expect(result.ttl).toBe(3600);
    expect(result.iceServers).toEqual([
      { urls: ['stun:stun.example.net:3478'] },
      {
        urls: ['turn:127.0.0.1:3478', 'turns:turn.example.net:5349'],
        username: `${now / 1000 + 3600}:m1`,
        credential: turnCredential('k', 'm1', now, 3600).credential,
      },
    ]);
  });

  it('lists no TURN server without a secret, and nothing when nothing is configured', () => {
    expect(
      iceServersFor({ urls: ['turn:127.0.0.1:3478'], secret: undefined, ttlSec: 3600 }, 'm1', now),
    ).toEqual({
      iceServers: [],
      ttl: 0,
    });
    expect(iceServersFor({ urls: [], secret: 'k', ttlSec: 3600 }, 'm1', now)).toEqual({
      iceServers: [],
      ttl: 0,
    });
  });
});
