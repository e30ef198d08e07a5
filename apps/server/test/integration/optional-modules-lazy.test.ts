import { RING_FILES_API_PATHS } from '@securering/contract';
import type * as TusServerModule from '@tus/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sanitizeRichHtml } from '../../src/lib/sanitize-html';
import { purgeAbandonedUploads } from '../../src/modules/ring-files/ring-files.tus';
import { WebPushService } from '../../src/modules/web-push/web-push.service';
import { SmtpTransport, smtpSettingsFrom } from '../../src/providers/mail/mail-transport';
import { StripeGateway } from '../../src/providers/payments/stripe-gateway';
import { S3StorageProvider } from '../../src/providers/storage/s3-storage';
import { buildTestApp, type TestApp } from '../build-test-app';
import { bearer, buildCustomer, buildRing, buildRingMember, ringToken } from '../factories';
import { createTestDatabase, type TestDatabase } from '../test-database';

/**
 * Issue 30's memory budget: the optional providers' libraries (about 20 MiB of heap together) are
 * loaded at their first use, never by an instance that does not use them. Each mock below records
 * when the server first imports the package, then hands it the real one.
 */
const { loaded, tusServers } = vi.hoisted(() => ({ loaded: new Set<string>(), tusServers: { made: 0 } }));
vi.mock('stripe', async (importOriginal) => (loaded.add('stripe'), importOriginal()));
vi.mock('@aws-sdk/client-s3', async (importOriginal) => (loaded.add('@aws-sdk/client-s3'), importOriginal()));
vi.mock('@tus/server', async (importOriginal) => {
  loaded.add('@tus/server');
  const actual = await importOriginal<typeof TusServerModule>();
  // Counts the tus servers made: one per app, however many first requests arrive together.
  class CountedServer extends actual.Server {
    constructor(...args: ConstructorParameters<typeof actual.Server>) {
      super(...args);
      tusServers.made++;
    }
  }
  return { ...actual, Server: CountedServer };
});
vi.mock('@tus/file-store', async (importOriginal) => (loaded.add('@tus/file-store'), importOriginal()));
vi.mock('nodemailer', async (importOriginal) => (loaded.add('nodemailer'), importOriginal()));
vi.mock('web-push', async (importOriginal) => (loaded.add('web-push'), importOriginal()));
vi.mock('sanitize-html', async (importOriginal) => (loaded.add('sanitize-html'), importOriginal()));

describe('optional providers are loaded at first use (issue 30)', () => {
  let database: TestDatabase;
  let t: TestApp;

  beforeAll(async () => {
    // A first start: its VAPID keys are made (node:crypto, newVapidKeys) without web-push.
    database = await createTestDatabase();
    // No SMTP, no S3, no Stripe key: nothing optional is configured.
    t = await buildTestApp({ database });
  });
  afterAll(async () => {
    await t.close();
    await database.handle.close();
    await database.drop();
  });

  it('an instance with nothing optional configured loads none of them', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    // The hourly upload purge and the mail worker (mails to the log without SMTP) run as usual.
    await purgeAbandonedUploads(t.ctx);
    await t.ctx.mail.processDue();
    expect(await t.ctx.mail.loggingWarning()).toBeDefined();
    expect(await new WebPushService(t.ctx).publicKey()).toMatch(/^B/);
    expect([...loaded]).toEqual([]);
  });

  it('a resumable upload loads tus at its first request, once for concurrent requests', async () => {
    const customer = await buildCustomer(t.ctx);
    const ring = await buildRing(t.ctx, customer.id);
    const owner = await buildRingMember(t.ctx, ring.id, { role: 'owner', customer_id: customer.id });
    const headers = { ...bearer(await ringToken(t.ctx, owner.id)), 'tus-resumable': '1.0.0' };
    // Without Upload-Length tus itself refuses the creation: it answered, so it was loaded.
    const answers = await Promise.all(
      [1, 2].map(() => t.app.inject({ method: 'POST', url: RING_FILES_API_PATHS.tus, headers })),
    );
    for (const res of answers) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.headers['tus-resumable']).toBe('1.0.0');
    }
    expect(loaded.has('@tus/server') && loaded.has('@tus/file-store')).toBe(true);
    const again = await t.app.inject({ method: 'POST', url: RING_FILES_API_PATHS.tus, headers });
    expect(again.statusCode).toBe(400);
    expect(tusServers.made).toBe(1);
  });

  it('each other provider loads its library at its first use', async () => {
    expect(await sanitizeRichHtml('<p onclick="x()">a<script>b</script></p>')).toBe('<p>a</p>');
    expect(loaded.has('sanitize-html')).toBe(true);

    const gateway = new StripeGateway({
      enabled: true,
      testMode: true,
      secretKey: 'sk_test_x',
      publicKey: 'pk_test_x',
      webhookSecret: 'whsec_x',
      apiBase: undefined,
    });
    await expect(gateway.constructEvent(Buffer.from('{}'), 't=1,v1=00')).rejects.toThrow();
    expect(loaded.has('stripe')).toBe(true);

    const smtp = smtpSettingsFrom({ host: '127.0.0.1', port: '9' });
    (await SmtpTransport.create(smtp!)).close();
    expect(loaded.has('nodemailer')).toBe(true);

    // Making the VAPID keys does not need web-push (it loads at a Ring's first push).
    await t.ctx.db.deleteFrom('web_push_keys').execute();
    expect(await new WebPushService(t.ctx).publicKey()).toMatch(/^B/);
    expect(loaded.has('web-push')).toBe(false);

    const s3 = new S3StorageProvider({
      bucket: 'b',
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:9',
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
      forcePathStyle: true,
    });
    expect(loaded.has('@aws-sdk/client-s3')).toBe(false);
    await expect(s3.checkReachable()).rejects.toThrow();
    s3.close();
    expect(loaded.has('@aws-sdk/client-s3')).toBe(true);
  });
});
