import { createECDH, createPublicKey, randomBytes, verify } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  COOKIES,
  CSRF_HEADER,
  WEB_PUSH_API_PATHS,
  WEB_PUSH_MAX_SUBSCRIPTIONS,
  WEB_PUSH_MESSAGES,
  ZWebPushPayload,
  ZWebPushPublicKeyResponse,
  dmConversationId,
  CHAT_API_PATHS,
} from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/lib/clock';
import { csrfTokenOf } from '../../src/plugins/auth';
import { endpointRefusal } from '../../src/modules/web-push/web-push.policy';
import { buildTestApp, type TestApp } from '../build-test-app';
import type { E2eeMember } from '../e2ee-member';
import { type PushRequest, openPushPayload, startPushService } from '../push-service';
import { joinedSocket, keyedRing } from '../ring-fixture';
import { listen, type TestSocket } from '../socket-client';

/** A browser's side of a push subscription: the keys the server encrypts to, which open the payload. */
function deviceKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16).toString('base64url');
  return {
    ecdh,
    auth,
    keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth },
    open(body: Buffer): unknown {
      return JSON.parse(openPushPayload(body, ecdh, auth));
    },
  };
}

/** Checks an ES256 VAPID JWT against the server's public key; answers its claims. */
function verifyVapid(authorization: string, publicKey: string): Record<string, unknown> {
  const match = /^vapid t=([^,]+), k=(.+)$/.exec(authorization);
  expect(match, authorization).not.toBeNull();
  const [, jwt, k] = match!;
  expect(k).toBe(publicKey);
  const [header, claims, signature] = jwt!.split('.') as [string, string, string];
  const raw = Buffer.from(publicKey, 'base64url');
  const key = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: raw.subarray(1, 33).toString('base64url'),
      y: raw.subarray(33).toString('base64url'),
    },
    format: 'jwk',
  });
  const ok = verify(
    'sha256',
    Buffer.from(`${header}.${claims}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  expect(ok).toBe(true);
  expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toMatchObject({ alg: 'ES256' });
  return JSON.parse(Buffer.from(claims, 'base64url').toString()) as Record<string, unknown>;
}

/**
 * Issue 29, Web Push: subscribe / unsubscribe (validation, authentication, CSRF, cap), and the
 * push a stored message makes the server send to a local stand-in for the push service: to
 * offline members with a subscription only, encrypted (aes128gcm) with a VAPID signature, at most
 * once per member and conversation per 30 s, a 410 forgetting the subscription.
 */
describe('Web Push', () => {
  // The start of a 30 s window: coalescing windows are fixed (the rate limiter's buckets).
  const clock = new ManualClock(new Date(Math.ceil(Date.now() / 30_000) * 30_000 + 1_000));
  let t: TestApp;
  let baseUrl: string;
  let push: Awaited<ReturnType<typeof startPushService>>;
  let pushBase: string;
  let received: PushRequest[] = [];
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    t = await buildTestApp({
      clock,
      config: { webPush: { subject: 'mailto:ops@example.com', allowLocalHttp: true } },
    });
    baseUrl = await listen(t.app);
    push = await startPushService();
    pushBase = push.base;
    received = push.received;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await push.close();
    await t.close();
  });

  const subscribe = (member: E2eeMember, endpoint: string, keys = deviceKeys().keys) =>
    member.call('POST', WEB_PUSH_API_PATHS.subscribe, { endpoint, keys });

  const subscriptionsOf = (memberId: string) =>
    t.ctx.db.selectFrom('push_subscriptions').selectAll().where('member_id', '=', memberId).execute();

  /** Sends, waits for the pushes it scheduled, answers the requests the push service received. */
  async function sendAndCollect(member: E2eeMember, text: string, conversationId?: string) {
    const before = received.length;
    const sent = await member.send(text, conversationId ? { conversationId } : {});
    expect(sent.statusCode, sent.body).toBe(200);
    await t.ctx.deferred.idle();
    return received.slice(before);
  }

  it('serves the VAPID public key, made once and kept in the database, to members only', async () => {
    const { members } = await keyedRing(t, 1);
    const res = await members[0]!.call('GET', WEB_PUSH_API_PATHS.publicKey);
    expect(res.statusCode, res.body).toBe(200);
    const { publicKey } = ZWebPushPublicKeyResponse.parse(res.json());
    expect(Buffer.from(publicKey, 'base64url')).toHaveLength(65);
    const rows = await t.ctx.db.selectFrom('web_push_keys').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.public_key).toBe(publicKey);
    // The private key is never served.
    expect(res.body).not.toContain(rows[0]!.private_key);
    expect((await t.app.inject({ method: 'GET', url: WEB_PUSH_API_PATHS.publicKey })).statusCode).toBe(401);
  });

  it('validates subscriptions, asks a Ring session (and the CSRF header with the cookie), caps devices', async () => {
    const { members } = await keyedRing(t, 1);
    const alice = members[0]!;
    const refusals: Array<[unknown, string]> = [
      [{ endpoint: 'pas une adresse', keys: deviceKeys().keys }, WEB_PUSH_MESSAGES.invalidEndpoint],
      [
        { endpoint: 'https://intranet.example.com/push', keys: deviceKeys().keys },
        WEB_PUSH_MESSAGES.untrustedEndpoint,
      ],
      [{ endpoint: 'http://10.0.0.1/push', keys: deviceKeys().keys }, WEB_PUSH_MESSAGES.invalidEndpoint],
      [{ endpoint: `${pushBase}/a`, keys: { p256dh: 'x', auth: 'y' } }, WEB_PUSH_MESSAGES.invalidKeys],
      // 87 characters, but not a point of the curve.
      [
        { endpoint: `${pushBase}/a`, keys: { ...deviceKeys().keys, p256dh: 'B'.repeat(87) } },
        WEB_PUSH_MESSAGES.invalidKeys,
      ],
    ];
    for (const [body, error] of refusals) {
      const res = await alice.call('POST', WEB_PUSH_API_PATHS.subscribe, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toBe(error);
    }
    expect(await subscriptionsOf(alice.memberId)).toHaveLength(0);

    // No session; the cookie without its CSRF header.
    const body = { endpoint: `${pushBase}/alice-1`, keys: deviceKeys().keys };
    expect(
      (await t.app.inject({ method: 'POST', url: WEB_PUSH_API_PATHS.subscribe, payload: body })).statusCode,
    ).toBe(401);
    const cookie = `${COOKIES.ringToken}=${alice.token}`;
    const noCsrf = await t.app.inject({
      method: 'POST',
      url: WEB_PUSH_API_PATHS.subscribe,
      payload: body,
      headers: { cookie },
    });
    expect(noCsrf.statusCode).toBe(403);
    expect(await subscriptionsOf(alice.memberId)).toHaveLength(0);
    const withCsrf = await t.app.inject({
      method: 'POST',
      url: WEB_PUSH_API_PATHS.subscribe,
      payload: body,
      headers: { cookie, [CSRF_HEADER]: csrfTokenOf(alice.token) },
    });
    expect(withCsrf.statusCode, withCsrf.body).toBe(200);
    expect(withCsrf.json().message).toBe(WEB_PUSH_MESSAGES.subscribed);

    // The same device again refreshes its keys; more devices than the cap push the oldest out.
    expect((await subscribe(alice, `${pushBase}/alice-1`)).statusCode).toBe(200);
    expect(await subscriptionsOf(alice.memberId)).toHaveLength(1);
    for (let i = 2; i <= WEB_PUSH_MAX_SUBSCRIPTIONS + 1; i++) {
      clock.advance(1);
      expect((await subscribe(alice, `${pushBase}/alice-${i}`)).statusCode).toBe(200);
    }
    const kept = (await subscriptionsOf(alice.memberId)).map((row) => row.endpoint).sort();
    expect(kept).toHaveLength(WEB_PUSH_MAX_SUBSCRIPTIONS);
    expect(kept).not.toContain(`${pushBase}/alice-1`);

    // Unsubscribe forgets the caller's own subscription only: another member naming it changes nothing.
    const other = (await keyedRing(t, 1)).members[0]!;
    const foreign = await other.call('POST', WEB_PUSH_API_PATHS.unsubscribe, {
      endpoint: `${pushBase}/alice-2`,
    });
    expect(foreign.statusCode).toBe(200);
    expect((await subscriptionsOf(alice.memberId)).map((row) => row.endpoint)).toContain(
      `${pushBase}/alice-2`,
    );
    const res = await alice.call('POST', WEB_PUSH_API_PATHS.unsubscribe, { endpoint: `${pushBase}/alice-2` });
    expect(res.statusCode, res.body).toBe(200);
    expect((await subscriptionsOf(alice.memberId)).map((row) => row.endpoint)).not.toContain(
      `${pushBase}/alice-2`,
    );
    expect(await subscriptionsOf(alice.memberId)).toHaveLength(WEB_PUSH_MAX_SUBSCRIPTIONS - 1);
  });

  it('pushes an encrypted, signed, nameless notice to an offline member; none to the sender or a connected member', async () => {
    const { ringId, owner, members } = await keyedRing(t, 2);
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    const aliceDevice = deviceKeys();
    const bobDevice = deviceKeys();
    expect((await subscribe(alice, `${pushBase}/alice`, aliceDevice.keys)).statusCode).toBe(200);
    expect((await subscribe(bob, `${pushBase}/bob`, bobDevice.keys)).statusCode).toBe(200);
    expect((await subscribe(owner, `${pushBase}/owner`)).statusCode).toBe(200);
    // Bob has the room open.
    const bobSocket = await joinedSocket(t, baseUrl, bob);
    sockets.push(bobSocket.socket);

    const pushes = await sendAndCollect(owner, 'Réunion à 15 h');
    expect(pushes.map((p) => p.path)).toEqual(['/alice']);
    const [push] = pushes as [PushRequest];
    expect(push.headers['content-encoding']).toBe('aes128gcm');
    expect(push.headers.ttl).toBe('86400');
    expect(push.headers.urgency).toBe('high');
    const publicKey = (
      await t.ctx.db.selectFrom('web_push_keys').select('public_key').executeTakeFirstOrThrow()
    ).public_key;
    const claims = verifyVapid(String(push.headers.authorization), publicKey);
    expect(claims).toMatchObject({ aud: pushBase, sub: 'mailto:ops@example.com' });
    // Only the device opens the payload: which Ring, nothing else (no text, no name).
    expect(push.body.toString('latin1')).not.toContain('Réunion');
    const payload = aliceDevice.open(push.body);
    expect(ZWebPushPayload.strict().parse(payload)).toEqual({ t: 'msg', r: ringId });

    // Coalesced: a second message in the same 30 s brings no second push; the next window does.
    expect(await sendAndCollect(owner, 'Encore un')).toHaveLength(0);
    clock.advance(30_000);
    expect((await sendAndCollect(owner, 'Plus tard')).map((p) => p.path)).toEqual(['/alice']);

    // A private message pushes to its peer only (a new conversation: its own window).
    const created = await alice.call('POST', CHAT_API_PATHS.createDm, { peer_user_id: owner.memberId });
    expect(created.statusCode, created.body).toBe(200);
    const dm = dmConversationId(alice.memberId, owner.memberId);
    expect((await sendAndCollect(alice, 'En privé', dm)).map((p) => p.path)).toEqual(['/owner']);
  });

  it('a message of a Ring known to have no subscription schedules no push work; a subscription made here is seen at once', async () => {
    const { owner, members } = await keyedRing(t, 1);
    const alice = members[0]!;
    const run = vi.spyOn(t.ctx.deferred, 'run');
    try {
      const pushTasks = () => run.mock.calls.filter(([name]) => name === 'web-push').length;
      // The first message asks whether the Ring has subscriptions (none): known from then on.
      expect(await sendAndCollect(owner, 'Premier')).toHaveLength(0);
      const afterFirst = pushTasks();
      expect(await sendAndCollect(owner, 'Deuxième')).toHaveLength(0);
      expect(pushTasks()).toBe(afterFirst);
      expect((await subscribe(alice, `${pushBase}/known/alice`)).statusCode).toBe(200);
      expect((await sendAndCollect(owner, 'Troisième')).map((p) => p.path)).toEqual(['/known/alice']);
    } finally {
      run.mockRestore();
    }
  });

  it('pushes nothing to a member no longer active in the Ring', async () => {
    const { owner, members } = await keyedRing(t, 1);
    const alice = members[0]!;
    expect((await subscribe(alice, `${pushBase}/inactive`)).statusCode).toBe(200);
    await t.ctx.db
      .updateTable('ring_members')
      .set({ status: 'inactive' })
      .where('id', '=', alice.memberId)
      .execute();
    expect(await sendAndCollect(owner, 'Bonjour')).toHaveLength(0);
  });

  it('forgets a subscription the push service says is gone (410)', async () => {
    const { owner, members } = await keyedRing(t, 1);
    const alice = members[0]!;
    expect((await subscribe(alice, `${pushBase}/gone/alice`)).statusCode).toBe(200);
    expect(await subscriptionsOf(alice.memberId)).toHaveLength(1);
    const pushes = await sendAndCollect(owner, 'Bonjour');
    expect(pushes.map((p) => p.path)).toEqual(['/gone/alice']);
    expect(await subscriptionsOf(alice.memberId)).toHaveLength(0);
  });

  it('a push service that does not answer neither slows the send nor breaks it', async () => {
    const { owner, members } = await keyedRing(t, 1);
    const alice = members[0]!;
    // A port that accepts and never answers.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    try {
      expect((await subscribe(alice, `http://127.0.0.1:${port}/silent`)).statusCode).toBe(200);
      const started = performance.now();
      const sent = await owner.send('Bonjour');
      expect(sent.statusCode).toBe(200);
      expect(performance.now() - started).toBeLessThan(2_000);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
    await t.ctx.deferred.idle();
    // Failed, kept, marked.
    const [row] = await subscriptionsOf(alice.memberId);
    expect(row?.last_error_at).not.toBeNull();
  });
});

describe('Web Push endpoint policy', () => {
  it('accepts the browsers’ push services over https only, and loopback http only when allowed', () => {
    const strict = { allowLocalHttp: false };
    expect(endpointRefusal('https://fcm.googleapis.com/fcm/send/abc', strict)).toBeNull();
    expect(endpointRefusal('https://updates.push.services.mozilla.com/wpush/v2/x', strict)).toBeNull();
    expect(endpointRefusal('https://web.push.apple.com/QGx', strict)).toBeNull();
    expect(endpointRefusal('https://wns2-par02p.notify.windows.com/w/?token=x', strict)).toBeNull();
    expect(endpointRefusal('https://evilfcm.googleapis.com.example.net/x', strict)).toBe(
      WEB_PUSH_MESSAGES.untrustedEndpoint,
    );
    expect(endpointRefusal('https://fcm.googleapis.com:8443/x', strict)).toBe(
      WEB_PUSH_MESSAGES.untrustedEndpoint,
    );
    expect(endpointRefusal('https://user:pw@fcm.googleapis.com/x', strict)).toBe(
      WEB_PUSH_MESSAGES.invalidEndpoint,
    );
    expect(endpointRefusal('http://fcm.googleapis.com/x', strict)).toBe(WEB_PUSH_MESSAGES.invalidEndpoint);
    expect(endpointRefusal('http://127.0.0.1:9/x', strict)).toBe(WEB_PUSH_MESSAGES.invalidEndpoint);
    expect(endpointRefusal('http://127.0.0.1:9/x', { allowLocalHttp: true })).toBeNull();
    expect(endpointRefusal('http://192.168.1.2/x', { allowLocalHttp: true })).toBe(
      WEB_PUSH_MESSAGES.invalidEndpoint,
    );
  });
});
