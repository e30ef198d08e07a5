import {
  RING_JOURNAL_MESSAGES,
  RING_JOURNAL_PAGE_SIZE,
  RING_MESSAGES,
  ZRingJournalResponse,
} from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../build-test-app';
import { E2eeMember } from '../e2ee-member';
import {
  bearer,
  buildCustomer,
  buildRing,
  buildRingMember,
  buildSubscription,
  customerToken,
  ringToken,
} from '../factories';
import { RingJournalRepository } from '../../src/modules/customer-space/ring-journal.repository';

/**
 * « Journal du Ring » (issue 25): the customer's record of who joined, was admitted or refused,
 * left, changed keys, and of the settings changed — from the signed membership log and the
 * server's own records — for the owner of the Ring, on plans that list « Audit logs ».
 */
describe('Ring journal in the customer space (issue 25)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  /** An Enterprise customer's Ring whose owner (« alice ») has keys and started the log. */
  async function enterpriseRing(planSlug = 'enterprise') {
    const customer = await buildCustomer(t.ctx);
    await buildSubscription(t.ctx, customer.id, { planSlug });
    const ring = await buildRing(t.ctx, customer.id);
    const ownerRow = await buildRingMember(t.ctx, ring.id, {
      role: 'owner',
      username: 'alice',
      customer_id: customer.id,
      email: customer.email,
      password_hash: null,
    });
    const owner = new E2eeMember(t.app, ownerRow.id, ring.id, await ringToken(t.ctx, ownerRow.id));
    expect((await owner.publish()).statusCode).toBe(200);
    expect((await owner.startLog()).statusCode).toBe(200);
    const headers = bearer(await customerToken(t.ctx, customer.id));
    return { customerId: customer.id, ringId: ring.id, owner, headers };
  }

  async function inviteAndAccept(ringId: string, headers: Record<string, string>, username: string) {
    const invite = await t.app.inject({
      method: 'POST',
      url: '/api/customer/ring-users.php',
      headers,
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

  const journal = (ringId: string, headers: Record<string, string>, query = '') =>
    t.app.inject({ method: 'GET', url: `/api/customer/ring-journal.php?ring_id=${ringId}${query}`, headers });

  it('tells the owner, newest first and in French, what the log and the server recorded', async () => {
    const { ringId, owner, headers } = await enterpriseRing();
    const bob = await inviteAndAccept(ringId, headers, 'bob');
    bob.sponsor = owner;
    expect((await bob.publish()).statusCode).toBe(200); // alice admits bob
    const carol = await inviteAndAccept(ringId, headers, 'carol');
    expect((await carol.publish({ admit: false })).statusCode).toBe(200);
    const refused = await owner.appendChange({
      type: 'refuse',
      body: { memberId: carol.memberId, username: 'carol' },
    });
    expect(refused.statusCode, refused.body).toBe(200);
    expect((await bob.publish({ reset: true })).statusCode).toBe(200); // bob's new keys, confirmed by alice
    const settings = await t.app.inject({
      method: 'PUT',
      url: '/api/customer/rings.php',
      headers,
      payload: { ring_id: ringId, encryption_level: 'military', allow_video: true },
    });
    expect(settings.statusCode, settings.body).toBe(200);
    const level = await owner.appendChange({ type: 'level', body: { level: 'military' } });
    expect(level.statusCode, level.body).toBe(200);
    const off = await t.app.inject({
      method: 'PATCH',
      url: '/api/customer/ring-users.php',
      headers,
      payload: { user_id: bob.memberId, status: 'inactive' },
    });
    expect(off.statusCode, off.body).toBe(200);
    const removed = await t.app.inject({
      method: 'POST',
      url: '/api/customer/ring-users.php',
      headers,
      payload: { ring_id: ringId, username: 'dave' },
    });
    await t.app.inject({
      method: 'DELETE',
      url: '/api/customer/ring-users.php',
      headers,
      payload: { user_id: removed.json().data.id as string },
    });

    const res = await journal(ringId, headers);
    expect(res.statusCode, res.body).toBe(200);
    const { data } = ZRingJournalResponse.parse(res.json());
    const texts = data.entries.map((e) => e.text);
    // Oldest to newest, as they happened.
    expect([...texts].reverse()).toEqual([
      'alice a ouvert le journal du Ring',
      'Invitation créée pour bob',
      'bob a rejoint le Ring (invitation acceptée)',
      'alice a admis bob',
      'Invitation créée pour carol',
      'carol a rejoint le Ring (invitation acceptée)',
      'carol a été refusé par alice',
      'alice a enregistré de nouvelles clés pour bob',
      'Paramètres modifiés\u202f: niveau de chiffrement, vidéo',
      'Niveau de sécurité changé\u202f: Militaire (double AES) (par alice)',
      'bob a été désactivé depuis l’espace client',
      'Invitation créée pour dave',
      'Invitation de dave supprimée',
    ]);
    expect(data.total).toBe(13);
    expect(data.entries.filter((e) => e.source === 'log').map((e) => e.seq)).toEqual([4, 3, 2, 1, 0]);
    // Times are the server's, newest first.
    const times = data.entries.map((e) => e.at);
    expect([...times].sort().reverse()).toEqual(times);

    const exported = ZRingJournalResponse.parse((await journal(ringId, headers, '&export=1')).json()).data;
    expect(exported.entries.map((e) => e.text)).toEqual(texts);
  });

  it('pages through the entries without repeating or losing one', async () => {
    const { ringId, headers } = await enterpriseRing();
    const start = Date.now() + 1000;
    for (let i = 0; i < RING_JOURNAL_PAGE_SIZE + 4; i++) {
      await new RingJournalRepository(t.ctx.db).insertEvent({
        id: `journal-${ringId}-${i}`,
        ring_id: ringId,
        kind: 'invitation_created',
        member_id: null,
        member_username: `invité${String(i).padStart(2, '0')}`,
        details: null,
        created_at: new Date(start + i * 1000).toISOString(),
      });
    }
    const first = ZRingJournalResponse.parse((await journal(ringId, headers, '&page=1')).json()).data;
    const second = ZRingJournalResponse.parse((await journal(ringId, headers, '&page=2')).json()).data;
    expect(first.total).toBe(RING_JOURNAL_PAGE_SIZE + 5);
    expect(first.entries).toHaveLength(RING_JOURNAL_PAGE_SIZE);
    expect(first.entries[0]!.text).toBe(`Invitation créée pour invité${RING_JOURNAL_PAGE_SIZE + 3}`);
    expect(second.entries.map((e) => e.text)).toEqual([
      'Invitation créée pour invité03',
      'Invitation créée pour invité02',
      'Invitation créée pour invité01',
      'Invitation créée pour invité00',
      'alice a ouvert le journal du Ring',
    ]);
    for (const bad of ['&page=0', '&page=abc', '&page=-1', '&page=99999']) {
      const res = await journal(ringId, headers, bad);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe(RING_JOURNAL_MESSAGES.invalidPage);
    }
  });

  it('is only for the Ring’s owner, and only on a plan that lists « Audit logs »', async () => {
    const { ringId, headers } = await enterpriseRing();
    const other = await enterpriseRing();
    const foreign = await journal(ringId, other.headers);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error).toBe(RING_MESSAGES.ringNotFound);
    expect((await journal(ringId, {})).statusCode).toBe(401);

    const pro = await enterpriseRing('professional');
    const refused = await journal(pro.ringId, pro.headers);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toBe(RING_JOURNAL_MESSAGES.notInPlan);
    // The owner of the Enterprise Ring still reads its own.
    expect((await journal(ringId, headers)).statusCode).toBe(200);
  });
});
