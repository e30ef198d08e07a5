import {
  CHAT_API_PATHS,
  KEY_API_PATHS,
  MEMBER_ACCESS_MESSAGES,
  MESSAGES,
  RING_MESSAGES,
  ZRingUsersResponse,
  ZUpdateRingUserStatusResponse,
  type TKeysChanged,
  type TNewMessageEvent,
  type TPresenceUpdate,
} from '@securering/contract';
import { generateEpochKey } from '@securering/e2ee';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../build-test-app';
import { type E2eeMember } from '../e2ee-member';
import { bearer, buildCustomer, buildRing, buildRingMember, customerToken, ringToken } from '../factories';
import { joinedSocket, keyedRing } from '../ring-fixture';
import { listen, type TestSocket } from '../socket-client';

const USERS = '/api/customer/ring-users.php';

/** Resolves once the socket is disconnected; rejects if that takes longer than `ms`. */
function closedWithin(socket: TestSocket, ms = 1000): Promise<void> {
  if (socket.disconnected) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`socket still connected after ${ms} ms`)), ms);
    socket.once('disconnect', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Issue 10, member deactivation: "Désactiver" ends the member's access at once and makes the next
 * Ring key epoch due, so the server refuses messages under the old epoch until the remaining
 * members have a new key; "Réactiver" brings the member back from the next epoch on.
 */
describe('member deactivation and the next epoch', () => {
  let t: TestApp;
  let baseUrl: string;
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    t = await buildTestApp();
    baseUrl = await listen(t.app);
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await t.close();
  });

  const patch = (headers: Record<string, string>, payload: object) =>
    t.app.inject({ method: 'PATCH', url: USERS, headers, payload });
  const ringRow = (ringId: string) =>
    t.ctx.db.selectFrom('rings').selectAll().where('id', '=', ringId).executeTakeFirstOrThrow();
  const memberRow = (id: string) =>
    t.ctx.db.selectFrom('ring_members').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  async function ringWithCustomer(count: number) {
    const ring = await keyedRing(t, count);
    const owner = bearer(await customerToken(t.ctx, ring.customerId));
    return { ...ring, customer: owner };
  }

  it('deactivates a member: access ends at once, old-epoch messages are refused until a new epoch', async () => {
    const { ringId, owner, members, customer } = await ringWithCustomer(2);
    const [alice, carol] = members as [E2eeMember, E2eeMember];
    const aliceSocket = await joinedSocket(t, baseUrl, alice);
    const carolSocket = await joinedSocket(t, baseUrl, carol);
    sockets.push(aliceSocket.socket, carolSocket.socket);
    expect((await alice.send('avant')).statusCode).toBe(200);

    const closed = closedWithin(carolSocket.socket, 1000);
    const res = await patch(customer, { user_id: carol.memberId, status: 'inactive' });
    expect(res.statusCode, res.body).toBe(200);
    const body = ZUpdateRingUserStatusResponse.parse(res.json());
    expect(body).toMatchObject({
      message: RING_MESSAGES.userDeactivated,
      data: { id: carol.memberId, status: 'inactive' },
    });
    await closed;
    // Carol's session is over, and so is anything she could ask.
    for (const url of [CHAT_API_PATHS.get, KEY_API_PATHS.state, '/api/rings/info.php']) {
      const denied = await carol.call('GET', url);
      expect(denied.statusCode, url).toBe(401);
      expect(denied.json().error).toBe(MESSAGES.sessionExpired);
    }
    // The others learn the next epoch is due, and that Carol is offline.
    await expect
      .poll(() =>
        aliceSocket.events.some(
          (e) => e.name === 'keys_changed' && (e.payload as TKeysChanged).reason === 'rotation_due',
        ),
      )
      .toBe(true);
    await expect
      .poll(() =>
        aliceSocket.events.some(
          (e) =>
            e.name === 'presence_update' &&
            (e.payload as TPresenceUpdate).userId === carol.memberId &&
            (e.payload as TPresenceUpdate).status === 'offline',
        ),
      )
      .toBe(true);
    expect((await ringRow(ringId)).rotation_due).toBe(1);

    // Under the old epoch: refused, the client must rotate first.
    const refused = await alice.send('après, époque 1');
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'rotation_required', currentEpoch: 1 });
    expect((await alice.state()).rotationDue).toBe(true);
    expect((await alice.members()).ring.e2ee).toEqual({ currentEpoch: 1, rotationDue: true });
    // A new epoch that still reaches Carol is refused: she is no longer an active member.
    await alice.syncLog();
    const next = await generateEpochKey({ ringId, epoch: 2, level: 'standard', logSeq: alice.log!.head.seq });
    const withCarol = await Promise.all(
      [owner, alice, carol].map((m) =>
        alice.wrapFor(next, { memberId: m.memberId, x25519: m.publicKeys.x25519 }),
      ),
    );
    const stillCarol = await alice.call('POST', KEY_API_PATHS.rotate, {
      epoch: 2,
      level: 'standard',
      shares: withCarol,
      keyVersions: { [owner.memberId]: 1, [alice.memberId]: 1, [carol.memberId]: 1 },
    });
    expect(stillCarol.statusCode).toBe(409);
    expect(stillCarol.json().code).toBe('members_changed');
    // The remaining members only (the room lists active members).
    expect((await alice.rotate()).statusCode).toBe(200);
    await expect
      .poll(() =>
        aliceSocket.keys.some((k) => k.reason === 'rotated' && k.epoch === 2 && k.ringId === ringId),
      )
      .toBe(true);
    expect((await alice.members()).ring.e2ee).toEqual({ currentEpoch: 2, rotationDue: false });
    const shares = await t.ctx.db
      .selectFrom('epoch_key_shares')
      .select(['recipient_member_id'])
      .where('ring_id', '=', ringId)
      .where('epoch', '=', 2)
      .execute();
    expect(shares.map((s) => s.recipient_member_id).sort()).toEqual([owner.memberId, alice.memberId].sort());
    expect((await ringRow(ringId)).rotation_due).toBe(0);

    const after = await alice.send('après le départ de Carol');
    expect(after.statusCode, after.body).toBe(200);
    expect(after.json().message.epoch).toBe(2);
    await owner.loadKeys();
    expect(await owner.decrypt(after.json().message.content)).toBe('après le départ de Carol');
    // Carol's keys open epoch 1 only: the new message is beyond her reach.
    expect(carol.epochKeys.has(2)).toBe(false);
    await expect(carol.decrypt(after.json().message.content)).rejects.toThrow();
    // Her open page received nothing after her deactivation.
    expect(
      carolSocket.events
        .filter((e) => e.name === 'new_message')
        .map((e) => (e.payload as TNewMessageEvent).seq),
    ).toEqual([1]);
  });

  it('refuses login by email and by invite code while inactive (saying so once the password matched), and accepts it again once reactivated', async () => {
    const customerRow = await buildCustomer(t.ctx);
    const ring = await buildRing(t.ctx, customerRow.id);
    const member = await buildRingMember(t.ctx, ring.id, {
      email: `membre.${ring.id.slice(-6)}@example.com`,
    });
    const customer = bearer(await customerToken(t.ctx, customerRow.id));
    const login = (payload: object) => t.app.inject({ method: 'POST', url: '/api/rings/login.php', payload });
    expect((await login({ email: member.email, password: member.password })).statusCode).toBe(200);

    expect((await patch(customer, { user_id: member.id, status: 'inactive' })).statusCode).toBe(200);
    for (const payload of [
      { email: member.email, password: member.password },
      { invite_code: member.invite_code, password: member.password },
    ]) {
      // The right password is told why (issue 28); a wrong one learns nothing.
      const res = await login(payload);
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe(MEMBER_ACCESS_MESSAGES.accessSuspended);
      const wrong = await login({ ...payload, password: 'Pas-le-bon-1' });
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json().error).toBe(RING_MESSAGES.invalidCredentials);
    }
    // Deactivating twice changes nothing more.
    expect((await patch(customer, { user_id: member.id, status: 'inactive' })).json().data.status).toBe(
      'inactive',
    );

    const back = await patch(customer, { user_id: member.id, status: 'active' });
    expect(back.json()).toMatchObject({ message: RING_MESSAGES.userReactivated, data: { status: 'active' } });
    expect((await login({ invite_code: member.invite_code, password: member.password })).statusCode).toBe(
      200,
    );
  });

  it('refuses to deactivate the owner, an unused invitation, or another customer’s member', async () => {
    const { ringId, owner, members, customer } = await ringWithCustomer(1);
    const ownerRes = await patch(customer, { user_id: owner.memberId, status: 'inactive' });
    expect(ownerRes.statusCode).toBe(403);
    expect(ownerRes.json().error).toBe(RING_MESSAGES.cannotDeactivateOwner);

    const invited = await buildRingMember(t.ctx, ringId, { status: 'invited', is_used: 0, used_at: null });
    const invitation = await patch(customer, { user_id: invited.id, status: 'inactive' });
    expect(invitation.statusCode).toBe(409);
    expect(invitation.json().error).toBe(RING_MESSAGES.cannotDeactivateInvitation);
    // An unused invitation is still removed with DELETE.
    const removed = await t.app.inject({
      method: 'DELETE',
      url: USERS,
      headers: customer,
      payload: { user_id: invited.id },
    });
    expect(removed.json()).toMatchObject({ success: true, message: RING_MESSAGES.userRemoved });

    const other = bearer(await customerToken(t.ctx, (await buildCustomer(t.ctx)).id));
    const foreign = await patch(other, { user_id: members[0]!.memberId, status: 'inactive' });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error).toBe(RING_MESSAGES.userNotFound);
    const badStatus = await patch(customer, { user_id: members[0]!.memberId, status: 'invited' });
    expect(badStatus.statusCode).toBe(400);
    expect(badStatus.json().error).toBe(RING_MESSAGES.invalidUserStatus);
    expect((await memberRow(members[0]!.memberId)).status).toBe('active');
    expect((await ringRow(ringId)).rotation_due).toBe(0);

    const list = ZRingUsersResponse.parse(
      (await t.app.inject({ method: 'GET', url: `${USERS}?ring_id=${ringId}`, headers: customer })).json(),
    );
    expect(list.data.map((u) => u.status).sort()).toEqual(['active', 'active']);
  });

  it('reactivates within the plan’s user limit; the member reads from the next epoch on', async () => {
    const { ringId, customerId, owner, members, customer } = await ringWithCustomer(2);
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    expect((await alice.send('pendant l’absence de Bob ?')).statusCode).toBe(200);
    expect((await patch(customer, { user_id: bob.memberId, status: 'inactive' })).statusCode).toBe(200);
    expect((await alice.rotate()).statusCode).toBe(200);
    expect((await alice.send('Bob n’est plus là')).statusCode).toBe(200);

    // The plan is full while Bob is away: he cannot come back.
    const plan = await t.ctx.db
      .selectFrom('subscriptions')
      .innerJoin('plans', 'plans.id', 'subscriptions.plan_id')
      .select(['plans.id', 'plans.max_users'])
      .where('subscriptions.customer_id', '=', customerId)
      .executeTakeFirstOrThrow();
    await t.ctx.db.updateTable('plans').set({ max_users: 1 }).where('id', '=', plan.id).execute();
    try {
      const full = await patch(customer, { user_id: bob.memberId, status: 'active' });
      expect(full.statusCode).toBe(403);
      expect(full.json().error).toBe(RING_MESSAGES.userLimit(1));
    } finally {
      await t.ctx.db
        .updateTable('plans')
        .set({ max_users: plan.max_users })
        .where('id', '=', plan.id)
        .execute();
    }

    const back = await patch(customer, { user_id: bob.memberId, status: 'active' });
    expect(back.statusCode, back.body).toBe(200);
    expect(await memberRow(bob.memberId)).toMatchObject({ status: 'active', first_readable_epoch: 3 });
    expect((await ringRow(ringId)).rotation_due).toBe(1);
    bob.token = await ringToken(t.ctx, bob.memberId);

    // Epoch 2 (while he was away) is not his: not shareable to him, its messages not served.
    const state = await alice.loadKeys();
    expect(state.pending).toEqual([]);
    const epoch2 = alice.epochKeys.get(2)!;
    const share = await alice.wrapFor(epoch2, { memberId: bob.memberId, x25519: bob.publicKeys.x25519 });
    const refused = await alice.call('POST', KEY_API_PATHS.share, {
      shares: [share],
      keyVersions: { [bob.memberId]: 1 },
    });
    expect(refused.statusCode).toBe(403);
    const bobPage = await bob.call('GET', CHAT_API_PATHS.get);
    expect(bobPage.json().messages).toEqual([]);
    expect((await bob.state()).shares).toEqual([]);

    // The next message needs epoch 3, which includes Bob.
    expect((await alice.send('bon retour')).statusCode).toBe(409);
    expect((await owner.rotate()).statusCode).toBe(200);
    await alice.loadKeys();
    const welcome = await alice.send('bon retour');
    expect(welcome.statusCode).toBe(200);
    // What the server gives him now: epoch 3 only (epoch 1 he got before his deactivation).
    bob.epochKeys.clear();
    expect((await bob.loadKeys()).shares.map((s) => s.epoch)).toEqual([3]);
    const messages = (await bob.call('GET', CHAT_API_PATHS.get)).json().messages as Array<{
      content: string;
    }>;
    expect(messages).toHaveLength(1);
    expect(await bob.decrypt(messages[0]!.content)).toBe('bon retour');
  });
});
