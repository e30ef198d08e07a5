import { CHAT_API_PATHS } from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});
