import {
  E2EE_MESSAGES,
  KEY_API_PATHS,
  MESSAGES,
  ZGetMemberKeyResponse,
  ZRingInfoResponse,
  ZSaveMemberKeyResponse,
} from '@securering/contract';
import {
  LEGACY_KDF_ITERATIONS,
  exportPublicIdentity,
  fingerprint,
  generateEpochKey,
  generateRecoveryKey,
  openIdentityWithRecoveryKey,
  resealRecord,
  upgradeRecord,
} from '@securering/e2ee';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, type TestApp } from '../build-test-app';
import { type E2eeMember, TEST_PASSPHRASE } from '../e2ee-member';
import { NOTHING_READABLE } from '../../src/modules/ring-keys/ring-keys.policy';
import { RingKeysRepository } from '../../src/modules/ring-keys/ring-keys.repository';
import { adminToken, bearer } from '../factories';
import { joinedSocket, ringWithMembers } from '../ring-fixture';
import { listen, type TestSocket } from '../socket-client';

/**
 * Issue 10, server side: member key records and public keys, Ring key epochs, key shares and the
 * nudges that make online members share keys. Real crypto from @securering/e2ee builds every
 * record, share and envelope.
 */
describe('Ring keys: records, epochs, shares', () => {
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

  const sharesOf = (ringId: string) =>
    t.ctx.db.selectFrom('epoch_key_shares').selectAll().where('ring_id', '=', ringId).execute();
  const ringRow = (ringId: string) =>
    t.ctx.db.selectFrom('rings').selectAll().where('id', '=', ringId).executeTakeFirstOrThrow();

  it('publishes a member’s record and public keys, and gives each member only its own record', async () => {
    const { members } = await ringWithMembers(t, 2);
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    const { members: strangers } = await ringWithMembers(t, 1);
    const stranger = strangers[0]!;

    const none = ZGetMemberKeyResponse.parse((await alice.call('GET', KEY_API_PATHS.getMemberKey)).json());
    expect(none).toEqual({ success: true, key: null, publicKeys: null, keyVersion: 0 });

    const published = await alice.publish();
    expect(published.statusCode, published.body).toBe(200);
    const saved = ZSaveMemberKeyResponse.parse(published.json());
    expect(saved.keyVersion).toBe(1);
    expect(saved.fingerprint).toBe(await fingerprint(alice.publicKeys));
    expect(saved.fingerprint).toMatch(/^(\d{5} ){5}\d{5}$/);

    const own = ZGetMemberKeyResponse.parse((await alice.call('GET', KEY_API_PATHS.getMemberKey)).json());
    expect(own).toEqual({ success: true, key: alice.record, publicKeys: alice.publicKeys, keyVersion: 1 });
    // Nobody else is served Alice's record: Bob (same Ring) and a stranger get their own, empty.
    for (const other of [bob, stranger]) {
      const res = await other.call('GET', KEY_API_PATHS.getMemberKey);
      expect(res.json()).toEqual({ success: true, key: null, publicKeys: null, keyVersion: 0 });
    }
    // The room lists public keys and safety numbers, never records.
    const info = ZRingInfoResponse.parse((await bob.call('GET', '/api/rings/info.php')).json());
    expect(info.users.find((u) => u.id === alice.memberId)!.keys).toEqual({
      publicKeys: alice.publicKeys,
      fingerprint: saved.fingerprint,
      keyVersion: 1,
    });
    expect(info.users.find((u) => u.id === bob.memberId)!.keys).toBeNull();
    expect(info.ring.e2ee).toEqual({ currentEpoch: 0, rotationDue: true });
    expect(JSON.stringify(info)).not.toContain(alice.record.wrapped_dek);
    const strangerInfo = await stranger.call('GET', '/api/rings/info.php');
    expect(strangerInfo.body).not.toContain(alice.memberId);
    expect(strangerInfo.body).not.toContain(alice.publicKeys.x25519);
  });

  it('refuses malformed records and public keys, and changes nothing', async () => {
    const { members } = await ringWithMembers(t, 1);
    const alice = members[0]!;
    await alice.newIdentity();
    const cases: Array<[object, string]> = [
      [{ ...alice.record, iv_b64: 'AAAA' }, 'iv'],
      [{ ...alice.record, kdf_iters: 1000 }, 'iters'],
      [{ ...alice.record, wrapped_dek: alice.record.wrapped_dek.slice(0, 100) }, 'dek'],
      [{ ...alice.record, hmac_hex: 'zz'.repeat(16) }, 'hmac'],
    ];
    for (const [key, label] of cases) {
      const res = await alice.call('POST', KEY_API_PATHS.saveMemberKey, {
        key,
        publicKeys: alice.publicKeys,
      });
      expect(res.statusCode, label).toBe(400);
      expect(res.json().error, label).toMatch(/^Enregistrement de clé invalide|Requête invalide/);
    }
    const badKeys = await alice.call('POST', KEY_API_PATHS.saveMemberKey, {
      key: alice.record,
      publicKeys: { x25519: 'A'.repeat(44), ed25519: alice.publicKeys.ed25519 },
    });
    expect(badKeys.statusCode).toBe(400);
    expect(badKeys.json().error).toBe(E2EE_MESSAGES.publicKeysInvalid);
    expect(
      await t.ctx.db.selectFrom('member_keys').selectAll().where('member_id', '=', alice.memberId).execute(),
    ).toEqual([]);
  });

  it('upgrades a record with the same keys, and needs a reset for new keys (which drops the shares)', async () => {
    const { ringId, owner, members } = await ringWithMembers(t, 2);
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    await alice.publish();
    await bob.publish();
    expect((await alice.rotate()).statusCode).toBe(200);
    const aliceSocket = await joinedSocket(t, baseUrl, alice);
    sockets.push(aliceSocket.socket);

    // A passphrase upgrade: same keys, new record, same version.
    const upgraded = await upgradeRecord(bob.record, TEST_PASSPHRASE, {
      memberId: bob.memberId,
      iterations: LEGACY_KDF_ITERATIONS + 1000,
    });
    const up = await bob.call('POST', KEY_API_PATHS.saveMemberKey, {
      key: upgraded,
      publicKeys: bob.publicKeys,
    });
    expect(up.json()).toMatchObject({ success: true, keyVersion: 1 });
    const stored = ZGetMemberKeyResponse.parse((await bob.call('GET', KEY_API_PATHS.getMemberKey)).json());
    expect(stored.key).toEqual(upgraded);
    expect((await sharesOf(ringId)).filter((s) => s.recipient_member_id === bob.memberId)).toHaveLength(1);

    // New keys without "reset": refused, nothing changes.
    const oldKeys = bob.publicKeys;
    await bob.newIdentity();
    const refused = await bob.call('POST', KEY_API_PATHS.saveMemberKey, {
      key: bob.record,
      publicKeys: bob.publicKeys,
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toBe(E2EE_MESSAGES.keysAlreadyPublished);
    expect(
      ZGetMemberKeyResponse.parse((await bob.call('GET', KEY_API_PATHS.getMemberKey)).json()).publicKeys,
    ).toEqual(oldKeys);

    // "Réinitialiser mes clés": version 2, Bob's old shares gone, the Ring told.
    const reset = await bob.call('POST', KEY_API_PATHS.saveMemberKey, {
      key: bob.record,
      publicKeys: bob.publicKeys,
      reset: true,
    });
    expect(reset.json()).toMatchObject({
      success: true,
      keyVersion: 2,
      fingerprint: await fingerprint(bob.publicKeys),
    });
    expect((await sharesOf(ringId)).filter((s) => s.recipient_member_id === bob.memberId)).toEqual([]);
    await expect
      .poll(
        () =>
          aliceSocket.keys.filter((k) => k.reason === 'member_keys' && k.memberId === bob.memberId).length,
      )
      .toBe(1);
    // His new keys are not in the membership log yet: nobody may wrap a key to them.
    expect((await alice.state()).pending).toEqual([]);
    // Once a member who may confirm it signs the key change, Alice sees Bob pending at his new
    // key version and shares the epoch again.
    const confirmed = await owner.appendChange({
      type: 'key_change',
      body: { memberId: bob.memberId, keys: bob.publicKeys },
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    const pending = (await alice.state()).pending;
    expect(pending).toEqual([
      { memberId: bob.memberId, keyVersion: 2, publicKeys: bob.publicKeys, epochs: [1] },
    ]);
    // A share for his previous key version does not count: he cannot open it.
    const [aliceShare] = (await sharesOf(ringId)).filter((s) => s.recipient_member_id === alice.memberId);
    await t.ctx.db
      .insertInto('epoch_key_shares')
      .values({
        ...aliceShare!,
        id: 'stale-share-of-bob',
        recipient_member_id: bob.memberId,
        recipient_key_version: 1,
      })
      .execute();
    expect((await alice.state()).pending).toEqual(pending);
    await t.ctx.db.deleteFrom('epoch_key_shares').where('id', '=', 'stale-share-of-bob').execute();
    bob.keyVersion = 2;
    const shared = await alice.shareAll();
    expect(shared!.json()).toEqual({ success: true, stored: 1 });
    bob.epochKeys.clear();
    await bob.loadKeys();
    expect(bob.epochKeys.has(1)).toBe(true);
  });

  it('stores an Argon2id record with its recovery copy (issue 27), refuses one below 64 MiB, and serves older records unchanged', async () => {
    const { members } = await ringWithMembers(t, 1);
    const [alice] = members as [E2eeMember];
    await alice.publish();
    // The PBKDF2 record of before issue 27 reads back exactly as it was uploaded.
    const before = ZGetMemberKeyResponse.parse((await alice.call('GET', KEY_API_PATHS.getMemberKey)).json());
    expect(before.key).toStrictEqual(alice.record);

    // Re-sealed at unlock with Argon2id and a recovery key: same keys, same key version.
    const recoveryKey = generateRecoveryKey();
    const upgraded = await resealRecord(
      alice.record,
      { passphrase: TEST_PASSPHRASE },
      { memberId: alice.memberId, recoveryKey },
    );
    const weak = { ...upgraded, kdf_mem_kib: 32 * 1024 };
    const refused = await alice.call('POST', KEY_API_PATHS.saveMemberKey, {
      key: weak,
      publicKeys: alice.publicKeys,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toBe('Enregistrement de clé invalide (kdf_mem_kib)');
    const badCopy = { ...upgraded, recovery: { ...upgraded.recovery!, hmac_hex: 'zz'.repeat(16) } };
    expect(
      (await alice.call('POST', KEY_API_PATHS.saveMemberKey, { key: badCopy, publicKeys: alice.publicKeys }))
        .statusCode,
    ).toBe(400);
    const unchanged = ZGetMemberKeyResponse.parse(
      (await alice.call('GET', KEY_API_PATHS.getMemberKey)).json(),
    );
    expect(unchanged.key).toStrictEqual(alice.record);

    const saved = await alice.call('POST', KEY_API_PATHS.saveMemberKey, {
      key: upgraded,
      publicKeys: alice.publicKeys,
    });
    expect(saved.json()).toMatchObject({ success: true, keyVersion: 1 });
    const stored = ZGetMemberKeyResponse.parse((await alice.call('GET', KEY_API_PATHS.getMemberKey)).json());
    expect(stored.key).toStrictEqual(upgraded);
    expect(stored.key).toMatchObject({ kdf: 'argon2id', kdf_mem_kib: 65536 });
    // What the server stores opens with the recovery key, in the member's browser only.
    const opened = await openIdentityWithRecoveryKey(stored.key!, recoveryKey, { memberId: alice.memberId });
    expect(await exportPublicIdentity(opened)).toEqual(alice.publicKeys);
  }, 60_000);

  it('lets the first member with keys create epoch 1 for every member with keys; one rotation wins a race', async () => {
    const { ringId, owner, members } = await ringWithMembers(t, 2);
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    // Without published keys there is nothing to rotate with.
    const noKeys = await alice.call('POST', KEY_API_PATHS.rotate, {
      epoch: 1,
      level: 'standard',
      shares: [],
      keyVersions: {},
    });
    expect(noKeys.statusCode).toBe(400);
    await owner.publish();
    await alice.publish();
    await bob.publish();

    const first = await owner.rotate();
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ success: true, epoch: 1 });
    expect(await ringRow(ringId)).toMatchObject({
      current_epoch: 1,
      rotation_due: 0,
      epoch_message_count: 0,
    });
    const shares = await sharesOf(ringId);
    expect(shares.map((s) => s.recipient_member_id).sort()).toEqual(
      [owner.memberId, alice.memberId, bob.memberId].sort(),
    );
    for (const member of [alice, bob]) {
      const state = await member.loadKeys();
      expect(state).toMatchObject({ currentEpoch: 1, rotationDue: false, level: 'standard' });
      expect(state.shares.map((s) => s.epoch)).toEqual([1]);
      // Only its own share.
      expect(state.shares.every((s) => s.share.recipientMemberId === member.memberId)).toBe(true);
      expect(member.epochKeys.has(1)).toBe(true);
    }

    // The same epoch again: conflict, with the current epoch to read.
    const again = await alice.call('POST', KEY_API_PATHS.rotate, {
      epoch: 1,
      level: 'standard',
      shares: [
        await alice.wrapFor(alice.epochKeys.get(1)!, {
          memberId: alice.memberId,
          x25519: alice.publicKeys.x25519,
        }),
      ],
      keyVersions: { [alice.memberId]: 1 },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'epoch_conflict', currentEpoch: 1 });

    // Two members rotate at once: exactly one epoch 2.
    // Both prepare their epoch 2 from the same state, then send together.
    let ready = 0;
    let go: () => void = () => undefined;
    const bothReady = new Promise<void>((resolve) => (go = resolve));
    const beforeSend = async () => {
      if (++ready === 2) go();
      await bothReady;
    };
    const raced = await Promise.all([alice.rotate({ beforeSend }), bob.rotate({ beforeSend })]);
    expect(raced.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(raced.find((r) => r.statusCode === 409)!.json()).toMatchObject({ code: 'epoch_conflict' });
    expect((await ringRow(ringId)).current_epoch).toBe(2);
    expect((await sharesOf(ringId)).filter((s) => s.epoch === 2)).toHaveLength(3);
  });

  it('refuses a rotation that leaves a member out, adds a stranger, or comes from a non-holder', async () => {
    const { ringId, members } = await ringWithMembers(t, 3);
    const [alice, bob, carol] = members as [E2eeMember, E2eeMember, E2eeMember];
    const { members: strangers } = await ringWithMembers(t, 1);
    const stranger = strangers[0]!;
    await stranger.publish();
    await alice.publish();
    await bob.publish();
    expect((await alice.rotate()).statusCode).toBe(200);
    const before = await sharesOf(ringId);

    const missing = await alice.rotate({ skip: [bob.memberId] });
    expect(missing.statusCode).toBe(409);
    expect(missing.json()).toMatchObject({
      code: 'members_changed',
      error: E2EE_MESSAGES.rotationIncomplete,
    });

    // A share for a member of another Ring.
    const state = await alice.state();
    const info = await alice.members();
    const key = alice.epochKeys.get(1)!;
    const next = await generateEpochKey({
      ringId,
      epoch: 2,
      level: 'standard',
      namesKey: key.namesKey,
      logSeq: alice.log!.head.seq,
    });
    const recipients = info.users.filter((u) => u.keys);
    const shares = await Promise.all(
      recipients.map((u) => alice.wrapFor(next, { memberId: u.id, x25519: u.keys!.publicKeys.x25519 })),
    );
    const foreign = await alice.wrapFor(next, {
      memberId: stranger.memberId,
      x25519: stranger.publicKeys.x25519,
    });
    const versions = Object.fromEntries(recipients.map((u) => [u.id, u.keys!.keyVersion]));
    const withStranger = await alice.call('POST', KEY_API_PATHS.rotate, {
      epoch: 2,
      level: state.level,
      shares: [...shares, foreign],
      keyVersions: { ...versions, [stranger.memberId]: 1 },
    });
    expect(withStranger.statusCode).toBe(409);
    expect(withStranger.json().code).toBe('members_changed');

    // A share signed as someone else, or for another level.
    const forged = { ...shares[0]!, senderMemberId: bob.memberId };
    const bad = await alice.call('POST', KEY_API_PATHS.rotate, {
      epoch: 2,
      level: 'standard',
      shares: [forged, ...shares.slice(1)],
      keyVersions: versions,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe(E2EE_MESSAGES.shareInvalid);
    const wrongLevel = await alice.call('POST', KEY_API_PATHS.rotate, {
      epoch: 2,
      level: 'military',
      shares,
      keyVersions: versions,
    });
    expect(wrongLevel.statusCode).toBe(400);
    expect(wrongLevel.json().error).toBe(E2EE_MESSAGES.levelMismatch);
    const malformed = await alice.call('POST', KEY_API_PATHS.rotate, {
      epoch: 2,
      level: 'standard',
      shares: [{ ...shares[0]!, ct: shares[0]!.ct.slice(4) }, ...shares.slice(1)],
      keyVersions: versions,
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error).toBe(E2EE_MESSAGES.shareInvalid);

    // Carol published after epoch 1 and holds nothing: she may not create epoch 2.
    await carol.publish();
    const notHolder = await carol.rotate();
    expect(notHolder.statusCode).toBe(403);
    expect(notHolder.json().error).toBe(E2EE_MESSAGES.notKeyHolder);

    expect((await ringRow(ringId)).current_epoch).toBe(1);
    expect(await sharesOf(ringId)).toEqual(before);
  });

  it('shares keys only with members who may read them, from holders only, once each', async () => {
    const { ringId, customerId, owner: ownerMember, members } = await ringWithMembers(t, 4);
    const [alice, bob, carol, dave] = members as [E2eeMember, E2eeMember, E2eeMember, E2eeMember];
    const { members: strangers } = await ringWithMembers(t, 1);
    const stranger = strangers[0]!;
    await stranger.publish();
    await alice.publish();
    expect((await alice.rotate()).statusCode).toBe(200);
    // Bob and Dave are admitted after epoch 1: Bob with the history (« Partager l'historique »
    // ticked), Dave without — he reads from the epoch his admission starts.
    await bob.publish({ admit: false });
    expect((await ownerMember.admit(bob.memberId, { shareHistory: true })).statusCode).toBe(200);
    await dave.publish();
    expect(
      (
        await t.ctx.db
          .selectFrom('ring_members')
          .select('first_readable_epoch')
          .where('id', '=', dave.memberId)
          .executeTakeFirstOrThrow()
      ).first_readable_epoch,
    ).toBe(2);

    const state = await alice.loadKeys();
    expect(state.pending).toEqual([
      { memberId: bob.memberId, keyVersion: 1, publicKeys: bob.publicKeys, epochs: [1] },
    ]);
    const key = alice.epochKeys.get(1)!;
    const toBob = await alice.wrapFor(key, { memberId: bob.memberId, x25519: bob.publicKeys.x25519 });
    const toDave = await alice.wrapFor(key, { memberId: dave.memberId, x25519: dave.publicKeys.x25519 });
    const toStranger = await alice.wrapFor(key, {
      memberId: stranger.memberId,
      x25519: stranger.publicKeys.x25519,
    });
    const toCarol = await alice.wrapFor(key, { memberId: carol.memberId, x25519: bob.publicKeys.x25519 });

    for (const [share, versions] of [
      [toDave, { [dave.memberId]: 1 }],
      [toStranger, { [stranger.memberId]: 1 }],
      // Carol has published no keys.
      [toCarol, { [carol.memberId]: 1 }],
    ] as const) {
      const res = await alice.call('POST', KEY_API_PATHS.share, { shares: [share], keyVersions: versions });
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe(E2EE_MESSAGES.shareNotAllowed);
    }
    const stale = await alice.call('POST', KEY_API_PATHS.share, {
      shares: [toBob],
      keyVersions: { [bob.memberId]: 3 },
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().code).toBe('members_changed');
    // Bob holds nothing: he cannot share epoch 1 with Dave, whatever he sends.
    const fromBob = { ...toDave, senderMemberId: bob.memberId };
    const notHolder = await bob.call('POST', KEY_API_PATHS.share, {
      shares: [fromBob],
      keyVersions: { [dave.memberId]: 1 },
    });
    expect(notHolder.statusCode).toBe(403);
    expect(notHolder.json().error).toBe(E2EE_MESSAGES.notKeyHolder);
    expect((await sharesOf(ringId)).map((s) => s.recipient_member_id).sort()).toEqual(
      [ownerMember.memberId, alice.memberId].sort(),
    );

    const bobSocket = await joinedSocket(t, baseUrl, bob);
    sockets.push(bobSocket.socket);
    const ok = await alice.call('POST', KEY_API_PATHS.share, {
      shares: [toBob, toBob],
      keyVersions: { [bob.memberId]: 1 },
    });
    expect(ok.json()).toEqual({ success: true, stored: 1 });
    await expect.poll(() => bobSocket.keys.filter((k) => k.reason === 'shared').length).toBe(1);
    const twice = await alice.call('POST', KEY_API_PATHS.share, {
      shares: [toBob],
      keyVersions: { [bob.memberId]: 1 },
    });
    expect(twice.json()).toEqual({ success: true, stored: 0 });
    await bob.loadKeys();
    expect(bob.epochKeys.has(1)).toBe(true);
    expect((await alice.state()).pending).toEqual([]);

    // The customer account turns the history setting on (H1: a stolen customer password): it
    // only offers the box in the admission dialog; Dave, admitted without it, still gets nothing.
    const owner = bearer((await t.ctx.sessions.issue('customer', customerId)).token);
    const setting = await t.app.inject({
      method: 'PUT',
      url: '/api/customer/rings.php',
      headers: owner,
      payload: { ring_id: ringId, share_history: true },
    });
    expect(setting.statusCode, setting.body).toBe(200);
    expect(setting.json().data.shareHistory).toBe(true);
    expect((await alice.state()).pending).toEqual([]);
    const history = await alice.call('POST', KEY_API_PATHS.share, {
      shares: [toDave],
      keyVersions: { [dave.memberId]: 1 },
    });
    expect(history.statusCode).toBe(403);
    expect((await dave.loadKeys()).firstReadableEpoch).toBe(2);
    expect(dave.epochKeys.has(1)).toBe(false);
  });

  it('nudges up to two online holders when a member lacks keys: on admission, join and request_keys', async () => {
    const { owner, members } = await ringWithMembers(t, 5);
    const [alice, bob, carol, dave, erin] = members as E2eeMember[] as [
      E2eeMember,
      E2eeMember,
      E2eeMember,
      E2eeMember,
      E2eeMember,
    ];
    for (const m of [alice, bob, carol]) await m.publish();
    expect((await alice.rotate()).statusCode).toBe(200);
    const online = await Promise.all([alice, bob, carol, dave].map((m) => joinedSocket(t, baseUrl, m)));
    sockets.push(...online.map((o) => o.socket));
    const needed = () =>
      online.map((o) => o.keys.filter((k) => k.reason === 'needed' && k.memberId === erin.memberId).length);

    // Erin publishes keys: nobody is asked while she waits for admission (she may receive nothing).
    await erin.publish({ admit: false });
    // Not admitted: nothing readable (not even ciphertext) whatever the invitation said.
    expect((await erin.call('GET', '/api/rings/keys/state.php')).json().firstReadableEpoch).toBe(
      NOTHING_READABLE,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(needed().reduce((a, b) => a + b, 0)).toBe(0);
    // Admitted with the history: two of the online holders are asked, never Dave (who holds nothing).
    expect((await owner.admit(erin.memberId, { shareHistory: true })).statusCode).toBe(200);
    await expect.poll(() => needed().reduce((a, b) => a + b, 0)).toBe(2);
    expect(needed()[3]).toBe(0);

    // Joining the room lacking keys asks again.
    const erinSocket = await joinedSocket(t, baseUrl, erin);
    sockets.push(erinSocket.socket);
    await expect.poll(() => needed().reduce((a, b) => a + b, 0)).toBe(4);

    // request_keys asks again; a member who lacks nothing nudges nobody.
    expect(await erinSocket.socket.emitWithAck('request_keys', { ringId: erin.ringId })).toEqual({
      ok: true,
      nudged: 2,
    });
    await expect.poll(() => needed().reduce((a, b) => a + b, 0)).toBe(6);
    expect(await online[1]!.socket.emitWithAck('request_keys', { ringId: bob.ringId })).toEqual({
      ok: true,
      nudged: 0,
    });
    // Another Ring's id is refused by the binder.
    const { ringId: otherRing } = await ringWithMembers(t, 0);
    expect(await erinSocket.socket.emitWithAck('request_keys', { ringId: otherRing })).toEqual({
      ok: false,
      error: MESSAGES.forbidden,
    });

    // A holder answers the nudge: Erin gets the key.
    const response = await alice.shareAll();
    expect(response!.json()).toEqual({ success: true, stored: 1 });
    await expect.poll(() => erinSocket.keys.some((k) => k.reason === 'shared')).toBe(true);
    await erin.loadKeys();
    expect(erin.epochKeys.has(1)).toBe(true);
  });

  it('gives a member of another Ring nothing: no record, no share, no pending member', async () => {
    const { members } = await ringWithMembers(t, 2);
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    await alice.publish();
    await bob.publish();
    expect((await alice.rotate()).statusCode).toBe(200);
    const { members: strangers } = await ringWithMembers(t, 1);
    const stranger = strangers[0]!;
    await stranger.publish();
    const state = await stranger.state();
    expect(state).toMatchObject({ currentEpoch: 0, shares: [], pending: [] });
    expect(JSON.stringify(state)).not.toContain(alice.memberId);
    const own = ZGetMemberKeyResponse.parse((await stranger.call('GET', KEY_API_PATHS.getMemberKey)).json());
    expect(own.key).toEqual(stranger.record);
  });

  it('deletes a customer’s epochs, shares, messages and read marks with its Rings', async () => {
    const { customerId, ringId, members } = await ringWithMembers(t, 2);
    const [alice, bob] = members as [E2eeMember, E2eeMember];
    await alice.publish();
    await bob.publish();
    expect((await alice.rotate()).statusCode).toBe(200);
    await bob.loadKeys();
    expect((await alice.send('bonjour')).statusCode).toBe(200);
    expect(
      (await bob.call('POST', '/api/conversations/read.php', { conversation_id: 'room:general', seq: 1 }))
        .statusCode,
    ).toBe(200);
    const root = await t.ctx.admins.findByUsername('root');
    const res = await t.app.inject({
      method: 'DELETE',
      url: '/api/admin/customers.php',
      headers: bearer(await adminToken(t.ctx, root!.id)),
      payload: { id: customerId },
    });
    expect(res.statusCode, res.body).toBe(200);
    const count = async (table: 'ring_epochs' | 'epoch_key_shares' | 'messages' | 'conversations') =>
      (await t.ctx.db.selectFrom(table).select('ring_id').where('ring_id', '=', ringId).execute()).length;
    expect(await count('ring_epochs')).toBe(0);
    expect(await count('epoch_key_shares')).toBe(0);
    expect(await count('messages')).toBe(0);
    expect(await count('conversations')).toBe(0);
    const reads = await t.ctx.db
      .selectFrom('conversation_reads')
      .select('member_id')
      .where('member_id', 'in', [alice.memberId, bob.memberId])
      .execute();
    expect(reads).toEqual([]);
    expect(
      await t.ctx.db
        .selectFrom('member_keys')
        .select('id')
        .where('member_id', 'in', [alice.memberId, bob.memberId])
        .execute(),
    ).toEqual([]);
  });

  it('reads who lacks which key once per key revision for all the members, each getting its own part', async () => {
    const { ringId, owner: ownerMember, members } = await ringWithMembers(t, 3);
    const [alice, bob, dave] = members as [E2eeMember, E2eeMember, E2eeMember];
    await alice.publish();
    await bob.publish();
    expect((await alice.rotate()).statusCode).toBe(200);
    // Dave is admitted with the history after epoch 1: he lacks it, and may read it.
    await dave.publish({ admit: false });
    expect((await ownerMember.admit(dave.memberId, { shareHistory: true })).statusCode).toBe(200);
    const reads = vi.spyOn(RingKeysRepository.prototype, 'ringWideLackingShares');
    try {
      const daveLacksEpoch1 = [
        { memberId: dave.memberId, keyVersion: 1, publicKeys: dave.publicKeys, epochs: [1] },
      ];
      // Three members read their state at the same revision (as after a rotation): one read.
      const [aliceState, bobState, daveState] = await Promise.all([alice.state(), bob.state(), dave.state()]);
      expect(aliceState.pending).toEqual(daveLacksEpoch1);
      expect(bobState.pending).toEqual(daveLacksEpoch1);
      // Dave holds nothing: nothing he could wrap, and he is never his own pending member.
      expect(daveState.pending).toEqual([]);
      expect((await alice.state()).pending).toEqual(daveLacksEpoch1);
      expect(reads).toHaveBeenCalledTimes(1);

      // A share stored raises the revision: the next state reads the list again.
      await alice.shareAll();
      expect((await bob.state()).pending).toEqual([]);
      expect(reads).toHaveBeenCalledTimes(2);

      // A list too long to keep: each caller's own part is read instead, the same answer.
      // Dave resets his keys and the owner confirms them in the log: he lacks epoch 1 again.
      expect((await dave.publish({ reset: true })).statusCode).toBe(200);
      const repository = new RingKeysRepository(t.ctx.db);
      expect(await repository.ringWideLackingShares(ringId, 0)).toBeUndefined();
      expect((await repository.ringWideLackingShares(ringId, 1))?.map((r) => [r.id, r.epoch])).toEqual([
        [dave.memberId, 1],
      ]);
      reads.mockResolvedValueOnce(undefined);
      expect((await alice.state()).pending).toEqual([
        { memberId: dave.memberId, keyVersion: 2, publicKeys: dave.publicKeys, epochs: [1] },
      ]);
    } finally {
      reads.mockRestore();
    }
  });

  it('moves the key revision with every change key states depend on, and answers it at join_ring when asked', async () => {
    const { ringId, customerId, owner: ownerMember, members } = await ringWithMembers(t, 3);
    const [alice, bob, carol] = members as [E2eeMember, E2eeMember, E2eeMember];
    const owner = bearer((await t.ctx.sessions.issue('customer', customerId)).token);
    const revision = async () => (await alice.state()).keyRevision;
    const admitWithHistory = (member: E2eeMember) =>
      ownerMember.admit(member.memberId, { shareHistory: true });
    /** Runs `change`, then expects the revision to have moved (or not). */
    const after = async (change: () => Promise<unknown>, moves: boolean) => {
      const before = await revision();
      await change();
      const now = await revision();
      if (moves) expect(now).toBeGreaterThan(before);
      else expect(now).toBe(before);
    };
    const settings = (payload: object) =>
      t.app.inject({
        method: 'PUT',
        url: '/api/customer/rings.php',
        headers: owner,
        payload: { ring_id: ringId, ...payload },
      });
    const status = (memberId: string, value: 'active' | 'inactive') =>
      t.app.inject({
        method: 'PATCH',
        url: '/api/customer/ring-users.php',
        headers: owner,
        payload: { user_id: memberId, status: value },
      });

    await after(() => alice.publish(), true);
    await after(() => alice.rotate(), true);
    await after(() => bob.publish({ admit: false }), true);
    await after(() => admitWithHistory(bob), true);
    await after(() => alice.shareAll(), true);
    await after(() => carol.publish({ admit: false }), true);
    await after(() => admitWithHistory(carol), true);
    await after(() => alice.shareAll(), true);
    // Nothing to share any more, a message, a setting outside keys: no change.
    await after(() => alice.shareAll(), false);
    await bob.loadKeys();
    await after(() => bob.send('bonjour'), false);
    await after(() => settings({ allow_voice: false }), false);
    await after(() => settings({ share_history: true }), true);
    await after(() => status(carol.memberId, 'inactive'), true);
    await after(() => status(carol.memberId, 'active'), true);
    await after(async () => {
      await bob.newIdentity();
      const reset = await bob.call('POST', KEY_API_PATHS.saveMemberKey, {
        key: bob.record,
        publicKeys: bob.publicKeys,
        reset: true,
      });
      expect(reset.statusCode).toBe(200);
    }, true);

    // join_ring answers the revision now when asked, and only then.
    const current = await revision();
    const asked = await joinedSocket(t, baseUrl, alice, undefined, { keyRevision: true });
    sockets.push(asked.socket);
    expect(asked.ack.keyRevision).toBe(current);
    const plain = await joinedSocket(t, baseUrl, alice);
    sockets.push(plain.socket);
    expect(plain.ack).not.toHaveProperty('keyRevision');
    expect((await ringRow(ringId)).key_revision).toBe(current);
  });
});
