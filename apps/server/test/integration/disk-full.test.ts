import { MESSAGES, ZAdminStatsResponse } from '@securering/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statfsProbe } from '../../src/lib/disk-space';
import { buildTestApp, TEST_ADMIN, type TestApp } from '../build-test-app';
import { adminToken, bearer, buildAdmin } from '../factories';
import { captureLog } from '../log-capture';
import { ringWithMembers } from '../ring-fixture';
import { TEST_DB_KIND } from '../test-database';

const GIB = 1024 ** 3;

/**
 * A full disk (issue 26): readiness fails with `storage: disk full`, writes answer 507 with a
 * French message and one clear log line, nothing is left corrupt, and freeing space is enough.
 * The free-space threshold is raised above the real free space (no disk is filled); SQLite is made
 * really full with `PRAGMA max_page_count`.
 */
describe('a full disk', () => {
  let t: TestApp;
  const log = captureLog();

  beforeAll(async () => {
    t = await buildTestApp({ config: { logLevel: 'info' }, logStream: log.stream });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('/readyz fails with « storage: disk full » below DATA_DIR_MIN_FREE_MB, the dashboard says so, and both recover once there is room again, without a restart', async () => {
    const admin = bearer(await adminToken(t.ctx, (await buildAdmin(t.ctx)).id));
    const diskSeen = async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/admin/stats.php', headers: admin });
      expect(res.statusCode).toBe(200);
      return ZAdminStatsResponse.parse(res.json()).data.disk;
    };
    expect(t.ctx.config.diskMinFreeBytes).toBe(200 * 1024 * 1024);
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().checks.storage).toBe('ok');
    expect(await diskSeen()).toMatchObject({ minFreeBytes: 200 * 1024 * 1024, warnFreeBytes: GIB });

    const { freeBytes } = await statfsProbe(t.ctx.config.dataDir);
    const threshold = t.ctx.disk.minFreeBytes;
    t.ctx.disk.minFreeBytes = freeBytes + 100 * GIB;
    try {
      const full = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(full.statusCode).toBe(503);
      expect(full.json()).toMatchObject({
        failed: ['storage'],
        checks: { storage: 'disk full', database: 'ok' },
      });
      const seen = await diskSeen();
      expect(seen?.state).toBe('full');
      expect(seen?.freeBytes).toBeGreaterThan(0);
      expect(seen?.freeBytes).toBeLessThan(seen!.minFreeBytes);
      // Above the readiness threshold but below the warning one: ready, and the dashboard warns.
      t.ctx.disk.minFreeBytes = Math.floor(freeBytes / 2);
      expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      expect((await diskSeen())?.state).toBe('low');
    } finally {
      t.ctx.disk.minFreeBytes = threshold;
    }
    const again = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(again.statusCode).toBe(200);
    expect(again.json().checks.storage).toBe('ok');
  });

  it.skipIf(TEST_DB_KIND !== 'sqlite')(
    'a full SQLite database answers sends and logins with 507 « Espace disque insuffisant sur le serveur », logs it once (not « cannot rollback »), stays intact and works again once it may grow',
    async () => {
      const { owner, members } = await ringWithMembers(t, 1);
      await members[0]!.publish();
      expect((await owner.rotate()).statusCode).toBe(200);
      expect((await owner.send('avant')).statusCode).toBe(200);
      const countMessages = async () =>
        Number(
          (
            await t.ctx.db
              .selectFrom('messages')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await countMessages();

      const pages = await sql<{ page_count: number }>`pragma page_count`.execute(t.ctx.db);
      const pageCount = Number(pages.rows[0]!.page_count);
      await sql.raw(`pragma max_page_count = ${pageCount}`).execute(t.ctx.db);
      const logBefore = log.text().length;
      let accepted = 0;
      let refused: { statusCode: number; body: string } | undefined;
      try {
        // Free pages inside the file may take a few sends; then the file must grow, and cannot.
        for (let i = 0; i < 200 && !refused; i++) {
          const res = await owner.send(`message ${i} ${'x'.repeat(8000)}`);
          if (res.statusCode === 200) accepted++;
          else refused = res;
        }
        expect(refused?.statusCode).toBe(507);
        expect(JSON.parse(refused!.body)).toEqual({ success: false, error: MESSAGES.diskFull });
        // More refused writes, a login among them: still 507, still one log line. Small sends use
        // the last free bytes of the file's pages first.
        expect((await owner.send(`encore ${'x'.repeat(8000)}`)).statusCode).toBe(507);
        for (let i = 0; i < 200; i++) {
          const res = await owner.send(`petit ${i}`);
          if (res.statusCode !== 200) {
            expect(res.statusCode).toBe(507);
            break;
          }
          accepted++;
        }
        const login = await t.app.inject({
          method: 'POST',
          url: '/api/admin/auth/login.php',
          payload: { username: TEST_ADMIN.username, password: TEST_ADMIN.password },
        });
        // Its session row may still fit in a page of its own table with room; never a 500.
        expect([200, 507]).toContain(login.statusCode);
        if (login.statusCode === 507) expect(login.json().error).toBe(MESSAGES.diskFull);

        const lines = log.text().slice(logBefore);
        expect(lines).not.toContain('cannot rollback');
        expect(lines).not.toContain('unexpected error');
        const diskLines = lines.split('\n').filter((line) => line.includes('disk full'));
        expect(diskLines).toHaveLength(1);
        expect(JSON.parse(diskLines[0]!)).toMatchObject({ level: 50, code: 'SQLITE_FULL' });

        // Nothing half-written: the database is intact and holds exactly the acknowledged messages.
        const check = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(t.ctx.db);
        expect(check.rows.map((r) => r.integrity_check)).toEqual(['ok']);
        expect(await countMessages()).toBe(before + accepted);
      } finally {
        await sql.raw('pragma max_page_count = 1073741823').execute(t.ctx.db);
      }
      // Space again: the same process serves writes.
      expect((await owner.send('après')).statusCode).toBe(200);
      expect(await countMessages()).toBe(before + accepted + 1);
    },
  );
});
