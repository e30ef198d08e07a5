import { ZRingUsersResponse } from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../build-test-app';
import { bearer, customerToken } from '../factories';
import { joinedSocket, ringWithMembers } from '../ring-fixture';
import { listen } from '../socket-client';

/** Issue 28: the owner's list says « En ligne » for members with the room open, not their last visit. */
describe('GET /api/customer/ring-users.php — who is online now', () => {
  let t: TestApp;
  let baseUrl = '';

  beforeAll(async () => {
    t = await buildTestApp();
    baseUrl = await listen(t.app);
  });
  afterAll(async () => {
    await t.close();
  });

  it('marks the members whose room is open, and only them', async () => {
    const { customerId, ringId, members } = await ringWithMembers(t, 2);
    const [present, absent] = members as [(typeof members)[0], (typeof members)[0]];
    const token = await customerToken(t.ctx, customerId);
    const list = async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/customer/ring-users.php?ring_id=${ringId}`,
        headers: bearer(token),
      });
      expect(res.statusCode).toBe(200);
      return new Map(ZRingUsersResponse.parse(res.json()).data.map((u) => [u.id, u.online]));
    };
    expect((await list()).get(present.memberId)).toBe(false);

    const { socket } = await joinedSocket(t, baseUrl, present);
    const online = await list();
    expect(online.get(present.memberId)).toBe(true);
    expect(online.get(absent.memberId)).toBe(false);

    socket.close();
    await expect.poll(async () => (await list()).get(present.memberId)).toBe(false);
  });
});
