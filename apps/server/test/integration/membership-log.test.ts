import {
  E2EE_MESSAGES,
  KEY_API_PATHS,
  MEMBERSHIP_LOG_MESSAGES,
  RING_MESSAGES,
  ZMembershipLogResponse,
  type TNewMessageEvent,
} from '@securering/contract';
import {
  createLink,
  exportPublicIdentity,
  generateEpochKey,
  generateIdentity,
  hashLink,
  type MembershipLink,
} from '@securering/e2ee';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, type TestApp } from '../build-test-app';
import { E2eeMember } from '../e2ee-member';
import { bearer, customerToken, ringToken } from '../factories';
import { joinedSocket, ringWithMembers } from '../ring-fixture';
import { listen, type TestSocket } from '../socket-client';

/**
 * The signed membership log on the server (issue 24): stored and served as signed, verified with
 * the browsers' own code before it is stored, applied to who may receive Ring keys. The attacks
 * are the outside review's (shared/review/secrev.poc.test.ts), each of which worked before.
 */
describe('the signed membership log on the server (issue 24)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const ringRow = (ringId: string) =>
    t.ctx.db.selectFrom('rings').selectAll().where('id', '=', ringId).executeTakeFirstOrThrow();
  const memberRow = (memberId: string) =>
    t.ctx.db.selectFrom('ring_members').selectAll().where('id', '=', memberId).executeTakeFirstOrThrow();

  /** What the customer space's users tab says of a member's admission. */
  async function admissionInCustomerSpace(customerId: string, ringId: string, memberId: string) {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/customer/ring-users.php?ring_id=${ringId}`,
      headers: bearer(await customerToken(t.ctx, customerId)),
    });
    expect(res.statusCode, res.body).toBe(200);
    const users = res.json().data as Array<{ id: string; admission: string | null }>;
    return users.find((u) => u.id === memberId)?.admission;
  }

  /** A person invited by the customer account who accepts, as a browser does; not admitted. */
  async function acceptedInvitation(customerId: string, ringId: string, username: string) {
    const customer = bearer(await customerToken(t.ctx, customerId));
    const invite = await t.app.inject({
      method: 'POST',
      url: '/api/customer/ring-users.php',
      headers: customer,
      payload: { ring_id: ringId, username },
    });
    expect(invite.statusCode, invite.body).toBe(200);
    const code = new URL(invite.json().invite_url as string).searchParams.get('invite')!;
    const accepted = await t.app.inject({
      method: 'POST',
      url: '/api/rings/accept-invite.php',
      payload: { invite_code: code, username, password: 'Zq9!vLr2#pWx-long' },
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    const body = accepted.json() as { token: string; user: { id: string } };
    return new E2eeMember(t.app, body.user.id, ringId, body.token);
  }

  it('serves the log to its members from a seq on, and stores only links the verifier accepts', async () => {
    const { ringId, owner, members } = await ringWithMembers(t, 2);
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    await alice.publish();
    const read = await bob.call('GET', `${KEY_API_PATHS.log}?after=0`);
    expect(read.statusCode).toBe(200);
    const log = ZMembershipLogResponse.parse(read.json());
    expect(log.links.map((l) => [l.seq, l.type])).toEqual([[1, 'admit']]);
    expect(log.headSeq).toBe(1);
    const row = await ringRow(ringId);
    expect(row).toMatchObject({ log_head_seq: 1, log_level: 'standard' });
    expect(row.log_head_hash).toBe(await hashLink(log.links[0] as unknown as MembershipLink));
    expect(await memberRow(alice.memberId)).toMatchObject({
      admitted_seq: 1,
      log_x25519: alice.publicKeys.x25519,
      log_ed25519: alice.publicKeys.ed25519,
    });

    // A plain member may not admit; a forged signature, a stale head and a link signed by someone
    // else than the caller are refused; nothing is stored.
    await bob.publish({ admit: false });
    const byMember = await alice
      .syncLog()
      .then((state) =>
        createLink(
          state!,
          {
            type: 'admit',
            body: {
              member: { id: bob.memberId, username: 'x', keys: bob.publicKeys },
              role: 'member',
              invitation: '',
              shareHistory: true,
              shareFiles: true,
            },
          },
          {
            memberId: alice.memberId,
            signingKey: alice.identity.signing.privateKey,
            ed25519: alice.publicKeys.ed25519,
          },
        ),
      )
      .catch((error: unknown) => error);
    expect(byMember).toMatchObject({ code: 'unverifiable' });
    const info = await owner.members();
    const bobName = info.users.find((u) => u.id === bob.memberId)!.username;
    const state = (await owner.syncLog())!;
    const signer = {
      memberId: owner.memberId,
      signingKey: owner.identity.signing.privateKey,
      ed25519: owner.publicKeys.ed25519,
    };
    const admitBob = await createLink(
      state,
      {
        type: 'admit',
        body: {
          member: { id: bob.memberId, username: bobName, keys: bob.publicKeys },
          role: 'member',
          invitation: bob.memberId,
          shareHistory: false,
          shareFiles: true,
        },
      },
      signer,
    );
    const forged = { ...admitBob, body: { ...admitBob.body, shareHistory: true } };
    expect((await owner.postLink(forged)).json().error).toBe(MEMBERSHIP_LOG_MESSAGES.invalidLink);
    const otherCaller = await alice.postLink(admitBob);
    expect(otherCaller.statusCode).toBe(400);
    // Keys other than the ones Bob published: the server refuses to record them for him.
    const strangerKeys = await exportPublicIdentity(await generateIdentity());
    const wrongKeys = await createLink(
      state,
      {
        type: 'admit',
        body: {
          member: { id: bob.memberId, username: bobName, keys: strangerKeys },
          role: 'member',
          invitation: bob.memberId,
          shareHistory: false,
          shareFiles: true,
        },
      },
      signer,
    );
    expect((await owner.postLink(wrongKeys)).json().error).toBe(MEMBERSHIP_LOG_MESSAGES.memberMismatch);
    expect((await ringRow(ringId)).log_head_seq).toBe(1);

    expect((await owner.postLink(admitBob)).statusCode).toBe(200);
    const stale = await owner.postLink(admitBob);
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'log_head_moved', error: MEMBERSHIP_LOG_MESSAGES.headMoved });
    expect((await memberRow(bob.memberId)).admitted_seq).toBe(2);
  });

  it('pushes room messages only to members who may read them: a newcomer’s open socket gets them from its admission on (across instances with Redis)', async () => {
    const baseUrl = await listen(t.app);
    // With Redis, the newcomer's socket is on another instance than the one that admits it.
    const other = process.env.TEST_REDIS_URL
      ? await buildTestApp({ database: t.database, redisKeyPrefix: t.ctx.config.redisKeyPrefix })
      : undefined;
    const otherUrl = other ? await listen(other.app) : baseUrl;
    const sockets: TestSocket[] = [];
    try {
      const { ringId, owner, members } = await ringWithMembers(t, 1);
      const [zoe] = members as [E2eeMember];
      zoe.sponsor = undefined;
      await zoe.publish();
      expect((await owner.rotate({ admitWaiting: false })).statusCode).toBe(200);
      const watcher = await joinedSocket(t, baseUrl, owner);
      const waiting = await joinedSocket(other ?? t, otherUrl, zoe);
      sockets.push(watcher.socket, waiting.socket);
      const roomMessages = (events: Array<{ name: string; payload: unknown }>) =>
        events.filter((e) => e.name === 'new_message').map((e) => (e.payload as TNewMessageEvent).messageId);

      const before = await owner.send('pendant son attente');
      expect(before.statusCode).toBe(200);
      await vi.waitFor(() => expect(roomMessages(watcher.events)).toHaveLength(1));
      expect(roomMessages(waiting.events)).toEqual([]);

      expect((await owner.admit(zoe.memberId)).statusCode).toBe(200);
      expect((await owner.rotate()).statusCode).toBe(200);
      const after = await owner.send('après son admission');
      const afterId = (after.json() as { message: { id: string } }).message.id;
      await vi.waitFor(() => expect(roomMessages(waiting.events)).toEqual([afterId]));
      expect(ringId).toBe(zoe.ringId);
    } finally {
      for (const socket of sockets) socket.close();
      await other?.close();
    }
  });

  it('gives a newcomer nothing until a member admits it, and then only from its admission on', async () => {
    const { customerId, ringId, owner, members } = await ringWithMembers(t, 1);
    const [alice] = members as [E2eeMember];
    await alice.publish();
    expect((await owner.rotate()).statusCode).toBe(200);
    expect((await owner.send('avant l’arrivée de Zoé')).statusCode).toBe(200);

    const zoe = await acceptedInvitation(customerId, ringId, 'Zoe');
    expect((await zoe.publish()).statusCode).toBe(200);
    // Waiting: not a recipient, not pending for anyone, may not create an epoch.
    expect((await owner.state()).pending).toEqual([]);
    expect(await owner.shareAll()).toBeUndefined();
    const own = await zoe.state();
    expect(own.shares).toEqual([]);
    expect(await admissionInCustomerSpace(customerId, ringId, zoe.memberId)).toBe('waiting');
    // Not even the ciphertext of what was said before: the history is empty while she waits.
    const before = await zoe.call('GET', '/api/messages/get.php?conversation_id=room:general');
    expect(before.statusCode).toBe(200);
    expect(before.json().messages).toEqual([]);
    const notAdmitted = await zoe.rotate({ admitWaiting: false });
    expect(notAdmitted.statusCode).toBe(400);
    expect(notAdmitted.json().error).toBe(E2EE_MESSAGES.notAdmitted);

    // Admitted without the history: a new epoch is due, she reads from it on.
    zoe.sponsor = owner;
    expect((await owner.admit(zoe.memberId)).statusCode).toBe(200);
    expect(await ringRow(ringId)).toMatchObject({ rotation_due: 1 });
    expect((await memberRow(zoe.memberId)).first_readable_epoch).toBe(2);
    expect(await admissionInCustomerSpace(customerId, ringId, zoe.memberId)).toBe('admitted');
    expect((await owner.state()).pending).toEqual([]);
    expect((await owner.rotate()).statusCode).toBe(200);
    expect((await owner.send('après son admission')).statusCode).toBe(200);
    await zoe.loadKeys();
    expect([...zoe.epochKeys.keys()]).toEqual([2]);
    const page = await zoe.call('GET', '/api/messages/get.php?conversation_id=room:general');
    const texts = await Promise.all(
      (page.json().messages as Array<{ content: string }>).map((m) => zoe.decrypt(m.content)),
    );
    expect(texts).toEqual(['après son admission']);
  });

  it('a member of a Ring from before its log keeps reading what it could once re-admitted', async () => {
    const { ringId, owner, members } = await ringWithMembers(t, 1);
    const [bob] = members as [E2eeMember];
    await bob.publish({ admit: false });
    // Bob held a key of an epoch made before the log (a version 1 share, stored as it was).
    const now = new Date().toISOString();
    await t.ctx.db
      .insertInto('ring_epochs')
      .values({
        ring_id: ringId,
        epoch: 1,
        level: 'standard',
        created_by_member_id: owner.memberId,
        created_at: now,
        log_seq: null,
      })
      .execute();
    await t.ctx.db.updateTable('rings').set({ current_epoch: 1 }).where('id', '=', ringId).execute();
    await t.ctx.db
      .insertInto('epoch_key_shares')
      .values({
        id: 'legacy-share',
        ring_id: ringId,
        epoch: 1,
        recipient_member_id: bob.memberId,
        recipient_key_version: bob.keyVersion,
        sender_member_id: owner.memberId,
        share: '{}',
        created_at: now,
      })
      .execute();
    expect(
      (await bob.call('GET', '/api/messages/get.php?conversation_id=room:general')).json().messages,
    ).toEqual([]);
    expect((await owner.admit(bob.memberId)).statusCode).toBe(200);
    expect((await memberRow(bob.memberId)).first_readable_epoch).toBe(0);
  });

  it('H1: a stolen customer account turns history on and invites « Support »: nobody wraps a key to it', async () => {
    const { customerId, ringId, owner, members } = await ringWithMembers(t, 1);
    const [bob] = members as [E2eeMember];
    await bob.publish();
    expect((await owner.rotate()).statusCode).toBe(200);
    expect((await owner.send('secret de l’époque 1')).statusCode).toBe(200);
    expect((await owner.rotate()).statusCode).toBe(200);
    expect((await owner.send('secret de l’époque 2')).statusCode).toBe(200);

    const customer = bearer(await customerToken(t.ctx, customerId));
    const history = await t.app.inject({
      method: 'PUT',
      url: '/api/customer/rings.php',
      headers: customer,
      payload: { ring_id: ringId, share_history: true },
    });
    expect(history.statusCode, history.body).toBe(200);
    const support = await acceptedInvitation(customerId, ringId, 'Support');
    expect((await support.publish()).statusCode).toBe(200);
    // Before: state.pending listed Support with epochs [1, 2], and the owner's browser wrapped them.
    expect((await owner.state()).pending).toEqual([]);
    expect(await owner.shareAll()).toBeUndefined();
    expect(await bob.shareAll()).toBeUndefined();
    await support.loadKeys();
    expect(support.epochKeys.size).toBe(0);
    // Nor can a share be forced on the server: Support is no recipient of any epoch.
    const forced = await owner.call('POST', KEY_API_PATHS.share, {
      shares: [
        await owner.wrapFor(owner.epochKeys.get(2)!, {
          memberId: support.memberId,
          x25519: support.publicKeys.x25519,
        }),
      ],
      keyVersions: { [support.memberId]: 1 },
    });
    expect(forced.statusCode).toBe(403);
  });

  it('M2: one member can no longer brick a Ring by rotating without the others', async () => {
    const { ringId, owner, members } = await ringWithMembers(t, 2);
    const [bob, mallory] = members as [E2eeMember, E2eeMember];
    await bob.publish();
    await mallory.publish();
    expect((await owner.rotate()).statusCode).toBe(200);
    await mallory.loadKeys();
    // Before: 200, and the owner and Bob got 403 on rotate and 409 on send for good.
    const withheld = await mallory.rotate({ withheld: [owner.memberId, bob.memberId], admitWaiting: false });
    expect(withheld.statusCode).toBe(409);
    expect(withheld.json().code).toBe('members_changed');
    expect((await ringRow(ringId)).current_epoch).toBe(1);
    expect((await owner.rotate()).statusCode).toBe(200);
  });

  it('M2: when nobody with keys holds the current epoch any more, any admitted member starts a recovery epoch', async () => {
    const { ringId, owner, members } = await ringWithMembers(t, 1);
    const [bob] = members as [E2eeMember];
    await bob.publish();
    expect((await owner.rotate()).statusCode).toBe(200);
    // Both reset their keys; the owner confirms both changes with its old key still in hand (a
    // passphrase it still knows), then holds nothing of epoch 1, like Bob.
    const previous = { identity: owner.identity, publicKeys: owner.publicKeys };
    expect((await owner.publish({ reset: true, admit: false })).statusCode).toBe(200);
    const fresh = { identity: owner.identity, publicKeys: owner.publicKeys };
    Object.assign(owner, previous);
    expect(
      (
        await owner.appendChange({
          type: 'key_change',
          body: { memberId: owner.memberId, keys: fresh.publicKeys },
        })
      ).statusCode,
    ).toBe(200);
    Object.assign(owner, fresh);
    await owner.syncLog();
    expect((await bob.publish({ reset: true })).statusCode).toBe(200);
    owner.epochKeys.clear();
    bob.epochKeys.clear();
    expect((await owner.state()).shares).toEqual([]);
    // The key state says so, to whoever lacks the current epoch: its browser starts a recovery epoch.
    expect((await bob.state()).currentEpochOrphaned).toBe(true);
    // Before: 403 « Vous ne détenez pas cette clé du Ring » forever.
    const recovery = await bob.rotate({ admitWaiting: false });
    expect(recovery.statusCode, recovery.body).toBe(200);
    expect((await ringRow(ringId)).current_epoch).toBe(2);
    await owner.loadKeys();
    expect(owner.epochKeys.has(2)).toBe(true);
    expect((await owner.state()).currentEpochOrphaned).toBe(false);
    // While someone still holds the current epoch, a non-holder still may not rotate (nor is told to).
    const carolLike = await ringWithMembers(t, 1);
    const [carol] = carolLike.members as [E2eeMember];
    expect((await carolLike.owner.rotate()).statusCode).toBe(200);
    await carol.publish({ admit: false });
    await carolLike.owner.admit(carol.memberId);
    expect((await carol.state()).currentEpochOrphaned).toBe(false);
    expect((await carol.rotate({ admitWaiting: false })).statusCode).toBe(403);
  });

  it('a refused newcomer loses its session at once and can never sign in or be reactivated', async () => {
    const { customerId, ringId, owner } = await ringWithMembers(t, 0);
    const mallory = await acceptedInvitation(customerId, ringId, 'Mallory');
    expect((await mallory.publish()).statusCode).toBe(200);
    const info = await owner.members();
    const name = info.users.find((u) => u.id === mallory.memberId)!.username;
    const refused = await owner.appendChange({
      type: 'refuse',
      body: { memberId: mallory.memberId, username: name },
    });
    expect(refused.statusCode, refused.body).toBe(200);
    expect((await mallory.call('GET', KEY_API_PATHS.state)).statusCode).toBe(401);
    expect(await memberRow(mallory.memberId)).toMatchObject({ status: 'inactive' });
    expect((await memberRow(mallory.memberId)).refused_at).not.toBeNull();
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/rings/login.php',
      payload: {
        invite_code: (await memberRow(mallory.memberId)).invite_code,
        password: 'Zq9!vLr2#pWx-long',
      },
    });
    expect(login.json().success).toBe(false);
    const reactivate = await t.app.inject({
      method: 'PATCH',
      url: '/api/customer/ring-users.php',
      headers: bearer(await customerToken(t.ctx, customerId)),
      payload: { user_id: mallory.memberId, status: 'active' },
    });
    expect(reactivate.statusCode).toBe(409);
    expect(reactivate.json().error).toBe(RING_MESSAGES.cannotReactivateRefused);
    expect(await admissionInCustomerSpace(customerId, ringId, mallory.memberId)).toBe('refused');
  });

  it('a member the log deactivated stays out when the customer space reactivates its account, until a member signs its reactivation', async () => {
    const { customerId, owner, members } = await ringWithMembers(t, 1);
    const [bob] = members as [E2eeMember];
    await bob.publish();
    expect((await owner.rotate()).statusCode).toBe(200);
    const setStatus = async (status: 'active' | 'inactive') =>
      t.app.inject({
        method: 'PATCH',
        url: '/api/customer/ring-users.php',
        headers: bearer(await customerToken(t.ctx, customerId)),
        payload: { user_id: bob.memberId, status },
      });

    // Deactivated in the customer space, then the owner records it in the log.
    expect((await setStatus('inactive')).statusCode).toBe(200);
    expect(
      (await owner.appendChange({ type: 'deactivate', body: { memberId: bob.memberId } })).statusCode,
    ).toBe(200);
    expect(await memberRow(bob.memberId)).toMatchObject({ status: 'inactive', log_deactivated: 1 });
    // A reactivation link is refused while the account is inactive (the customer space decides accounts).
    const early = await owner.appendChange({ type: 'reactivate', body: { memberId: bob.memberId } });
    expect(early.statusCode).toBe(400);
    expect(early.json().error).toBe(MEMBERSHIP_LOG_MESSAGES.reactivateAccountFirst);

    // The customer space reactivates the account: bob signs in again, but reads nothing and is no
    // recipient — a rotation without him is accepted, and he is pending for nobody.
    expect((await setStatus('active')).statusCode).toBe(200);
    bob.token = await ringToken(t.ctx, bob.memberId);
    expect((await owner.rotate()).statusCode).toBe(200);
    expect((await owner.state()).pending).toEqual([]);
    expect((await bob.state()).shares.filter((s) => s.epoch === 2)).toEqual([]);
    const page = await bob.call('GET', '/api/messages/get.php?conversation_id=room:general');
    expect(page.json().messages ?? []).toEqual([]);
    expect((await bob.rotate({ admitWaiting: false })).json().error).toBe(E2EE_MESSAGES.notAdmitted);

    // Signed in the room: he is a recipient again, from the next epoch on.
    expect(
      (await owner.appendChange({ type: 'reactivate', body: { memberId: bob.memberId } })).statusCode,
    ).toBe(200);
    expect(await memberRow(bob.memberId)).toMatchObject({
      status: 'active',
      log_deactivated: 0,
      first_readable_epoch: 3,
    });
    expect((await owner.rotate()).statusCode).toBe(200);
    await bob.loadKeys();
    expect([...bob.epochKeys.keys()]).toContain(3);
  });

  it('the level the owner signed is the level of new epochs, whatever the server stores', async () => {
    const { ringId, owner } = await ringWithMembers(t, 0);
    // The server (or the customer account) lowers the level: the signed level stays.
    await t.ctx.db.updateTable('rings').set({ encryption_level: 'basic' }).where('id', '=', ringId).execute();
    const log = (await owner.syncLog())!;
    const basic = await generateEpochKey({ ringId, epoch: 1, level: 'basic', logSeq: log.head.seq });
    const downgraded = await owner.call('POST', KEY_API_PATHS.rotate, {
      epoch: 1,
      level: 'basic',
      shares: [await owner.wrapFor(basic, { memberId: owner.memberId, x25519: owner.publicKeys.x25519 })],
      keyVersions: { [owner.memberId]: owner.keyVersion },
    });
    expect(downgraded.statusCode).toBe(400);
    expect(downgraded.json().error).toBe(E2EE_MESSAGES.levelMismatch);
    expect((await owner.rotate()).statusCode).toBe(200);
    await owner.loadKeys();
    expect(owner.epochKeys.get(1)!.level).toBe('standard');
  });
});
