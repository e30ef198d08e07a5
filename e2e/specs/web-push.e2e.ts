import { createECDH, randomBytes } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PushRequest, openPushPayload, startPushService } from '../../apps/server/test/push-service';
import { apiJson as api, type RingLogin } from '../support/api';
import { screenshot, trackPageErrors } from '../support/browser';
import { newCanary } from '../support/canary';
import { customerWithRing } from '../support/customer';
import { MEMBER_PASSWORD, admitAndWait, openRoomPage, ownerRingLogin } from '../support/ring-setup';
import { memberRow, openUnlockedRoom } from '../support/room';
import { PAYMENT_TEST_MODE_ENV } from '../support/server';
import { useSuite } from '../support/suite';

const OWNER = 'paul.push@example.com';
const RING = 'Équipe Veille';
const PHRASES = { owner: 'la cloche sonne même fermée', alice: 'alice dort mais reste prévenue' };
const CANARY = newCanary();
/** The worker's scope (public/download-sw.js, features/ring/files/stream-download.ts). */
const WORKER_SCOPE = '/__securering/download/';

/**
 * Issue 29, notifications when the tab is closed: alice opts in from the room's notification
 * preferences, closes her tab; the owner writes; the server asks the push service (a local
 * stand-in here: headless Chromium cannot reach a real one, so the browser's subscribe() answers
 * the stand-in's endpoint and keys this test holds) to wake her browser with an encrypted payload
 * naming nobody; the payload, opened as her browser would, is delivered to the service worker
 * through Chromium's DevTools protocol, which shows « Nouveau message dans Équipe Veille ».
 */
describe('[CHAT] Web Push to a closed tab', () => {
  const suite = useSuite({ mailbox: true, env: { ...PAYMENT_TEST_MODE_ENV, WEB_PUSH_ALLOW_HTTP: '1' } });
  let pushService: Awaited<ReturnType<typeof startPushService>> | undefined;
  let received: PushRequest[] = [];
  let endpoint = '';
  // Alice's browser's side of the subscription: the keys the server encrypts to.
  const device = createECDH('prime256v1');
  device.generateKeys();
  const auth = randomBytes(16).toString('base64url');
  let ringId = '';
  let owner: Page;
  let alice: Page;
  let aliceCode = '';
  let aliceContext: BrowserContext;
  const errors: string[][] = [];

  beforeAll(async () => {
    pushService = await startPushService();
    received = pushService.received;
    endpoint = `${pushService.base}/push/alice`;

    let customerToken = '';
    ({ customerToken, ringId } = await customerWithRing(suite.server, suite.mailbox, OWNER, RING));
    const ownerLogin = await ownerRingLogin(suite.server.url, OWNER);
    const invited = await api<{ data: { inviteCode: string } }>(
      suite.server.url,
      'POST',
      '/api/customer/ring-users.php',
      { ring_id: ringId, username: 'alice' },
      customerToken,
    );
    aliceCode = invited.data.inviteCode;
    const aliceLogin = await api<RingLogin>(suite.server.url, 'POST', '/api/rings/accept-invite.php', {
      invite_code: aliceCode,
      username: 'alice',
      email: '',
      password: MEMBER_PASSWORD,
    });
    owner = await openRoomPage(suite, ownerLogin, PHRASES.owner, { errors });

    alice = await openRoomPage(suite, aliceLogin, PHRASES.alice, {
      errors,
      prepare: async (page) => {
        const context = page.context();
        aliceContext = context;
        await context.grantPermissions(['notifications'], { origin: suite.server.url });
        // The browser's registration with its push service, which headless Chromium cannot make:
        // subscribe() answers the stand-in's endpoint and this test's keys; everything else is real.
        await context.addInitScript(
          ({ endpoint, p256dh, auth }) => {
            let current: PushSubscription | null = null;
            PushManager.prototype.subscribe = async function (options?: PushSubscriptionOptionsInit) {
              const key = options?.applicationServerKey as Uint8Array;
              current = {
                endpoint,
                expirationTime: null,
                options: { applicationServerKey: key.slice().buffer, userVisibleOnly: true },
                getKey: () => null,
                toJSON: () => ({ endpoint, expirationTime: null, keys: { p256dh, auth } }),
                unsubscribe: async () => {
                  current = null;
                  return true;
                },
              } as unknown as PushSubscription;
              return current;
            };
            PushManager.prototype.getSubscription = async () => current;
          },
          { endpoint, p256dh: device.getPublicKey().toString('base64url'), auth },
        );
      },
    });
    await admitAndWait(owner, 'alice', alice);
  }, 240_000);

  afterAll(async () => {
    await pushService?.close();
  });

  it('[CHAT] a member opts in, closes the tab, and the service worker shows the Ring’s notice', async () => {
    await alice.getByRole('button', { name: 'Couper les notifications' }).click();
    await alice.getByRole('button', { name: 'Préférences de notification…' }).click();
    const dialog = alice.getByRole('dialog', { name: 'Préférences de notification' });
    const toggle = dialog.getByRole('switch', {
      name: 'Recevoir les notifications quand l’onglet est fermé',
    });
    await toggle.scrollIntoViewIfNeeded();
    await dialog.getByText('ni l’expéditeur ni le texte ne passent par le service de notification').waitFor();
    await toggle.click();
    await alice.getByText('Notifications activées sur cet appareil').first().waitFor();
    expect(await toggle.getAttribute('aria-checked')).toBe('true');
    await screenshot(alice, 'web-push-preference');

    // Alice closes her tab; the owner writes in the room.
    const context = alice.context();
    await alice.close();
    // The server saw her socket go (the owner's list says so): she has no connected tab now.
    await (await memberRow(owner, 'alice')).getByText('Hors ligne').waitFor({ timeout: 30_000 });
    const box = owner.getByRole('textbox', { name: 'Message' }).first();
    await box.fill(`Réunion à 15 h ${CANARY}`);
    await owner.getByRole('button', { name: 'Envoyer' }).first().click();

    // The server's request to the push service: encrypted to the device, signed (VAPID), a TTL.
    for (let i = 0; i < 100 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(received.map((r) => r.path)).toEqual(['/push/alice']);
    const [push] = received as [PushRequest];
    expect(push.headers['content-encoding']).toBe('aes128gcm');
    expect(Number(push.headers.ttl)).toBeGreaterThan(0);
    expect(String(push.headers.authorization)).toMatch(/^vapid t=[\w-]+\.[\w-]+\.[\w-]+, k=[\w-]{87}$/);
    expect(push.body.toString('latin1')).not.toContain(CANARY);
    // What the browser decrypts: the Ring, and nothing of the message or its sender.
    const plain = openPushPayload(push.body, device, auth);
    expect(JSON.parse(plain)).toEqual({ t: 'msg', r: ringId });

    // Delivered to the service worker of the closed tab's browser (DevTools protocol).
    const other = await context.newPage();
    await other.goto(`${suite.server.url}/terms`);
    const cdp = await context.newCDPSession(other);
    const registrations: Array<{ registrationId: string; scopeURL: string; isDeleted: boolean }> = [];
    cdp.on('ServiceWorker.workerRegistrationUpdated', (event) => registrations.push(...event.registrations));
    await cdp.send('ServiceWorker.enable');
    for (let i = 0; i < 50 && !registrations.some((r) => r.scopeURL.endsWith(WORKER_SCOPE)); i++)
      await other.waitForTimeout(100);
    const registration = registrations.find((r) => r.scopeURL.endsWith(WORKER_SCOPE) && !r.isDeleted);
    expect(registration).toBeDefined();
    const titles = async () =>
      other.evaluate(async (scope) => {
        const reg = await navigator.serviceWorker.getRegistration(scope);
        return (await reg!.getNotifications()).map((n) => ({ title: n.title, body: n.body }));
      }, WORKER_SCOPE);
    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin: suite.server.url,
      registrationId: registration!.registrationId,
      data: plain,
    });
    await expect.poll(titles, { timeout: 10_000 }).toContainEqual({
      title: `Nouveau message dans ${RING}`,
      body: 'Ouvrez le Ring pour le lire.',
    });
    // A Ring this browser does not know (or an unreadable payload): the generic notice.
    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin: suite.server.url,
      registrationId: registration!.registrationId,
      data: JSON.stringify({ t: 'msg', r: 'inconnu' }),
    });
    await expect.poll(titles, { timeout: 10_000 }).toContainEqual({
      title: 'Nouveau message sur SecureRing',
      body: 'Ouvrez le Ring pour le lire.',
    });
    for (const list of errors)
      expect(list.filter((e) => !/Failed to fetch|NetworkError/.test(e))).toEqual([]);
  }, 120_000);

  it('[CHAT] the room renews the opt-in when it opens, and logging out forgets the subscription', async () => {
    // Alice comes back in the same browser (its storage keeps her opt-in).
    const page = await aliceContext.newPage();
    errors.push(trackPageErrors(page));
    const calls: Array<{ path: string; body: string }> = [];
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith('/api/push/')) calls.push({ path, body: request.postData() ?? '' });
    });
    const login = await api<RingLogin>(suite.server.url, 'POST', '/api/rings/login.php', {
      invite_code: aliceCode,
      password: MEMBER_PASSWORD,
    });
    await openUnlockedRoom(page, suite.server.url, login, PHRASES.alice);
    await expect.poll(() => calls.map((c) => c.path)).toContain('/api/push/subscribe.php');
    await page.getByRole('button', { name: 'Déconnexion' }).first().click();
    await expect.poll(() => calls.map((c) => c.path)).toContain('/api/push/unsubscribe.php');
    expect(JSON.parse(calls.find((c) => c.path === '/api/push/unsubscribe.php')!.body)).toEqual({ endpoint });
    await page.getByRole('button', { name: 'Se connecter' }).waitFor();
    expect(
      await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('secureRing.webPush.'))),
    ).toEqual([]);
  }, 120_000);
});
