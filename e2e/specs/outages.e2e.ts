import { MESSAGES } from '@securering/contract';
import type { Page } from 'playwright-core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canStartRedis, startOwnRedis, type OwnRedis } from '../../apps/server/test/redis-server';
import { apiJson as api, invitedMember, type RingLogin } from '../support/api';
import { screenshot, trackPageErrors } from '../support/browser';
import { CUSTOMER_PASSWORD, customerWithRing } from '../support/customer';
import { openUnlockedRoom } from '../support/room';
import { PAYMENT_TEST_MODE_ENV } from '../support/server';
import { useSuite } from '../support/suite';
import { tcpRelay, type TcpRelay } from '../support/tcp-relay';

const RING = 'Équipe Panne';
const MEMBER_PASSWORD = 'Membre-Pass-123';
const OWNER_PHRASE = 'la panne ne dure jamais longtemps';
const BOB_PHRASE = 'bob attend le retour du service';

const usersPanel = (page: Page) => page.getByRole('list', { name: 'Membres du Ring' });
const memberRow = (page: Page, username: string) =>
  usersPanel(page).getByRole('listitem', { name: username });
const roomChat = (page: Page) => page.getByRole('region', { name: `Salon • ${RING}` });

/** The owner's Ring session through the API, as the sign-in form gets it. */
async function ownerLogin(baseUrl: string, email: string): Promise<RingLogin> {
  return api<RingLogin>(baseUrl, 'POST', '/api/rings/login.php', { email, password: CUSTOMER_PASSWORD });
}

/**
 * Issue 26 in the browser: what a person sees while Redis is down (presence « Statut inconnu »,
 * polling) and while the database is down (« Service momentanément indisponible… » while the page
 * retries), and that everything comes back by itself.
 */
describe.runIf(canStartRedis)('[OUTAGES] Redis down: presence unknown, polling, then live again', () => {
  let redis: OwnRedis;
  const env: Record<string, string> = { ...PAYMENT_TEST_MODE_ENV };
  beforeAll(async () => {
    redis = await startOwnRedis();
    env.REDIS_URL = redis.url;
  });
  const suite = useSuite({ mailbox: true, env });
  afterAll(async () => {
    await redis?.stop();
  });

  it('[OUTAGES] a member shows « Statut inconnu » while Redis is down, and « En ligne » once it is back', async () => {
    const email = 'paul.panne@example.com';
    const { customerToken, ringId } = await customerWithRing(suite.server, suite.mailbox, email, RING);
    const bobLogin = await invitedMember(suite.server.url, customerToken, ringId, 'bob', MEMBER_PASSWORD);
    const owner = await suite.page();
    const errors = trackPageErrors(owner);
    await openUnlockedRoom(owner, suite.server.url, await ownerLogin(suite.server.url, email), OWNER_PHRASE);
    const bob = await suite.page();
    await openUnlockedRoom(bob, suite.server.url, bobLogin, BOB_PHRASE);
    await memberRow(owner, 'bob').getByText('En ligne').waitFor({ timeout: 20_000 });
    await owner.getByText('2 en ligne / 2 au total').waitFor();

    await redis.kill();
    // The instance sees only its own sockets (it polls meanwhile): it does not claim to know who is
    // online elsewhere. Nothing fails, so no « Service momentanément indisponible » here.
    await memberRow(owner, 'bob').getByText('Statut inconnu').waitFor({ timeout: 15_000 });
    await owner.getByText('Présence momentanément inconnue / 2 au total').waitFor();
    // The person's own row is never « inconnu ».
    expect(await usersPanel(owner).getByText('Statut inconnu').count()).toBe(1);
    expect(await owner.getByTestId('service-status-banner').count()).toBe(0);
    await screenshot(owner, 'outage-redis-down-presence-unknown');
    const ready = (await (await fetch(`${suite.server.url}/readyz`)).json()) as Record<string, unknown>;
    expect(ready.status).toBe('degraded');

    await redis.start();
    await memberRow(owner, 'bob').getByText('En ligne').waitFor({ timeout: 20_000 });
    await owner.getByText('2 en ligne / 2 au total').waitFor();
    expect(await usersPanel(owner).getByText('Statut inconnu').count()).toBe(0);
    await screenshot(owner, 'outage-redis-back-presence-live');
    expect(errors).toEqual([]);
  });
});

const DATABASE_URL = process.env.TEST_DATABASE_URL;

describe.skipIf(!DATABASE_URL)(
  '[OUTAGES] database down: the page says so, retries, and sends once it is back',
  () => {
    const database = `securering_outage_e2e_${process.pid}`;
    let relay: TcpRelay;
    const env: Record<string, string> = { ...PAYMENT_TEST_MODE_ENV };
    beforeAll(async () => {
      const admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${database}`);
      await admin.query(`CREATE DATABASE ${database}`);
      await admin.end();
      const target = new URL(DATABASE_URL!);
      relay = await tcpRelay(Number(target.port || 5432));
      target.hostname = '127.0.0.1';
      target.port = String(relay.port);
      target.pathname = `/${database}`;
      env.DATABASE_URL = target.toString();
    });
    const suite = useSuite({ mailbox: true, env });
    afterAll(async () => {
      relay?.open();
      await relay?.close();
      const admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    });

    it('[OUTAGES] a message sent while PostgreSQL is unreachable shows the French notice, then goes out when it is back', async () => {
      const email = 'lea.base@example.com';
      await customerWithRing(suite.server, suite.mailbox, email, RING);
      const owner = await suite.page();
      await openUnlockedRoom(
        owner,
        suite.server.url,
        await ownerLogin(suite.server.url, email),
        OWNER_PHRASE,
      );
      const chat = roomChat(owner);
      await chat.getByRole('textbox', { name: 'Message' }).fill('envoyé pendant la panne');

      const log = chat.getByRole('log', { name: 'Messages' });
      relay.shut();
      await chat.getByRole('button', { name: 'Envoyer' }).click();
      // The bubble waits, marked as being sent, while the page retries.
      await log.getByText('Envoi…').waitFor();
      const banner = owner.getByTestId('service-status-banner');
      await banner.waitFor({ timeout: 10_000 });
      expect(await banner.textContent()).toBe(MESSAGES.serviceUnavailable);
      expect(MESSAGES.serviceUnavailable).toBe(
        'Service momentanément indisponible, nouvel essai dans quelques secondes',
      );
      await screenshot(owner, 'outage-database-down-banner');

      relay.open();
      await banner.waitFor({ state: 'detached', timeout: 20_000 });
      await log.getByText('envoyé pendant la panne').waitFor();
      await log.getByText('Envoi…').waitFor({ state: 'detached', timeout: 20_000 });
      await screenshot(owner, 'outage-database-back-sent');
      // Stored once, although the page sent it several times.
      const check = new pg.Client({ connectionString: env.DATABASE_URL });
      await check.connect();
      const stored = await check.query<{ n: string }>('SELECT count(*) AS n FROM messages');
      await check.end();
      expect(Number(stored.rows[0]!.n)).toBe(1);
    });
  },
);
