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

  const call = { callId: 'c1', memberId: 'm1' };

  it('lists STUN as is and TURN with a credential bound to the call, that expires after the ttl', () => {
    const result = iceServersFor(
      {
        urls: ['stun:stun.example.net:3478', 'turn:127.0.0.1:3478', 'turns:turn.example.net:5349'],
        secret: 'k',
        ttlSec: 300,
      },
      call,
      now,
    );
    expect(result.ttl).toBe(300);
    expect(result.iceServers).toEqual([
      { urls: ['stun:stun.example.net:3478'] },
      {
        urls: ['turn:127.0.0.1:3478', 'turns:turn.example.net:5349'],
        username: `${now / 1000 + 300}:c1:m1`,
        credential: turnCredential('k', 'c1:m1', now, 300).credential,
      },
    ]);
  });

  it('never hands out a credential valid more than 10 minutes', () => {
    const result = iceServersFor({ urls: ['turn:127.0.0.1:3478'], secret: 'k', ttlSec: 3600 }, call, now);
    expect(result.ttl).toBe(600);
    expect(result.iceServers[0]!.username).toBe(`${now / 1000 + 600}:c1:m1`);
  });

  it('lists no TURN server without a secret, and nothing when nothing is configured', () => {
    expect(
      iceServersFor({ urls: ['turn:127.0.0.1:3478'], secret: undefined, ttlSec: 600 }, call, now),
    ).toEqual({
      iceServers: [],
      ttl: 0,
    });
    expect(iceServersFor({ urls: [], secret: 'k', ttlSec: 600 }, call, now)).toEqual({
      iceServers: [],
      ttl: 0,
    });
  });
});
