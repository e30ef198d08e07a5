import { CHAT_API_PATHS } from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessagesService } from '../../src/modules/messages/messages.service';
import { buildTestApp, type TestApp } from '../build-test-app';
import { bearer } from '../factories';
import { ringWithMembers } from '../ring-fixture';

/**
 * Catch-up pages go as they are (issue 26, docs/BENCHMARKS.md « Catch-up after a long stall »):
 * compressing 512 KiB of base64 ciphertext on the fly saved about a quarter of the bytes but held
 * each answer's copies until the garbage collector ran, and 50 pages catching up at once went over
 * the memory budget. A history page (no `since`) is still compressed.
 */
describe('catch-up answers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('sends a catch-up page uncompressed, and a history page compressed, to a client that accepts both', async () => {
    const { owner, members } = await ringWithMembers(t, 1);
    await members[0]!.publish();
    expect((await owner.rotate()).statusCode).toBe(200);
    for (let i = 0; i < 3; i++) expect((await owner.send(`${i} ${'x'.repeat(4000)}`)).statusCode).toBe(200);
    const get = (query: string) =>
      t.app.inject({
        method: 'GET',
        url: `${CHAT_API_PATHS.get}?conversation_id=room%3Ageneral${query}`,
        headers: { ...bearer(owner.token), 'accept-encoding': 'br, gzip' },
      });

    const catchUp = await get('&since=0');
    expect(catchUp.statusCode).toBe(200);
    expect(catchUp.headers['content-encoding']).toBeUndefined();
    expect((catchUp.json() as { messages: unknown[] }).messages).toHaveLength(3);

    const history = await get('');
    expect(history.statusCode).toBe(200);
    expect(history.headers['content-encoding']).toBe('br');
  });

  /**
   * On PostgreSQL, 50 pages catching up at once grew the heap by 150 MiB: a request that waited its
   * turn at the catch-up gate has its frames and promises in the old generation, and each page they
   * were resolved with stayed reachable from them until a full collection. The page is now written
   * from inside the gate and emptied, and only `undefined` goes back up (docs/BENCHMARKS.md).
   */
  it('serialises a catch-up page inside the gate, empties it after, and sends back nothing of it', async () => {
    const { ringId, owner, members } = await ringWithMembers(t, 1);
    await members[0]!.publish();
    expect((await owner.rotate()).statusCode).toBe(200);
    for (let i = 0; i < 3; i++) expect((await owner.send(`${i} ${'y'.repeat(2000)}`)).statusCode).toBe(200);
    const caller = {
      member: await t.ctx.db
        .selectFrom('ring_members')
        .selectAll()
        .where('id', '=', owner.memberId)
        .executeTakeFirstOrThrow(),
      ring: await t.ctx.db.selectFrom('rings').selectAll().where('id', '=', ringId).executeTakeFirstOrThrow(),
    };
    const service = new MessagesService(t.ctx);
    const query = { conversation_id: 'room:general', since: 0, limit: 100 };
    let handed: { messages: unknown[]; hasMore: boolean } | undefined;
    let seen: string | undefined;
    const result: unknown = await service.deliverCatchUp(caller, query, (page) => {
      handed = page;
      seen = JSON.stringify(page);
    });
    expect(result).toBeUndefined();
    const parsed = JSON.parse(seen!) as { messages: Array<{ content: string }>; hasMore: boolean };
    expect(parsed.messages).toHaveLength(3);
    expect(parsed.messages[0]!.content.length).toBeGreaterThan(2000);
    expect(parsed.hasMore).toBe(false);
    // The same page as get() reads it, then emptied once handed over.
    expect(JSON.parse(seen!)).toEqual(JSON.parse(JSON.stringify(await service.get(caller, query))));
    expect(handed!.messages).toHaveLength(0);

    // The route answers these bytes as JSON.
    const res = await t.app.inject({
      method: 'GET',
      url: `${CHAT_API_PATHS.get}?conversation_id=room%3Ageneral&since=0`,
      headers: bearer(owner.token),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toEqual({ success: true, ...parsed });
  });
});
