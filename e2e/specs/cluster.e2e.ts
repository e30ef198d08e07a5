import { randomUUID } from 'node:crypto';
import * as e2ee from '@securering/e2ee';
import type { ClientToServerEvents, ServerToClientEvents, TNewMessageEvent } from '@securering/contract';
import type { Browser, Page } from 'playwright-core';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_DRAIN_MS, startCluster, type Cluster } from '../../scripts/lib/cluster.mjs';
import {
  DRIVER_CUSTOMER_PASSWORD,
  RingMember,
  api,
  apiOk,
  inviteMembers,
  mapLimit,
  ringWithSenders,
  subscribedRing,
} from '../../scripts/lib/ring-driver.mjs';
import { launchBrowser, newContext, screenshot, trackPageErrors } from '../support/browser';
import { saveRecoveryKey } from '../support/room';

/**
 * Several instances, faults and load (issue 16): three built instances on PostgreSQL, Redis and S3
 * behind HAProxy. Needs PostgreSQL and Redis (TEST_DATABASE_URL, TEST_REDIS_URL, as CI sets them)
 * and HAProxy (/usr/sbin/haproxy, installed by .ci/run); skipped without the first two.
 */
const DATABASE_URL = process.env.TEST_DATABASE_URL;
const REDIS_URL = process.env.TEST_REDIS_URL;
const ADMIN = { username: 'admin', password: 'Admin-Cluster-Pass-1' } as const;

type RingSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/**
 * A member's client as the web chat behaves: one socket.io connection through the load balancer,
 * a fresh single-use stream token for every (re)connection, join_ring after each connect, then a
 * catch-up from the database after the last contiguous sequence it has; new_message events are
 * merged by sequence, and a gap triggers a catch-up. Never recreated: no reload.
 */
class LiveMember {
  readonly socket: RingSocket;
  /** seq → the message this client holds at that position. */
  readonly view = new Map<number, { id: string; clientMessageId: string }>();
  contiguous = 0;
  joins = 0;
  conflicts: string[] = [];
  readonly presence: Array<{ userId: string; status: string; at: number }> = [];
  private catchingUp: Promise<void> | undefined;
  private again = false;
  private joined!: () => void;
  readonly firstJoin = new Promise<void>((resolve) => (this.joined = resolve));

  constructor(
    readonly member: RingMember,
    url: string,
    options: { reconnection?: boolean } = {},
  ) {
    this.socket = io(url, {
      path: '/socket.io',
      transports: ['websocket'],
      reconnection: options.reconnection ?? true,
      reconnectionDelay: 500,
      reconnectionDelayMax: 2000,
      timeout: 10_000,
      auth: (callback) => {
        member.mintStreamToken({ retries: 30 }).then(
          (token) => callback({ token }),
          () => callback({}),
        );
      },
    });
    this.socket.on('connect', () => void this.join());
    this.socket.on('disconnect', (reason) => {
      // A server-side "disconnect" is not retried by socket.io: reconnect like the web client.
      if (reason === 'io server disconnect' && options.reconnection !== false)
        setTimeout(() => this.socket.connect(), 500);
    });
    this.socket.on('connect_error', () => {
      if (!this.socket.active && options.reconnection !== false) setTimeout(() => this.socket.connect(), 500);
    });
    this.socket.on('new_message', (event: TNewMessageEvent) => {
      if (event.conversationId !== 'room:general') return;
      this.record(event.seq, event.messageId, event.clientMessageId);
      if (event.seq > this.contiguous + 1) void this.catchUp();
    });
    this.socket.on('presence_update', (update) =>
      this.presence.push({ userId: update.userId, status: update.status, at: Date.now() }),
    );
    // Changes the server gathered in one batch (several members within ~100 ms).
    this.socket.on('presence_updates', ({ updates }) => {
      for (const update of updates)
        this.presence.push({ userId: update.userId, status: update.status, at: Date.now() });
    });
  }

  private async join(): Promise<void> {
    try {
      const ack = await this.socket.timeout(5000).emitWithAck('join_ring', { ringId: this.member.ringId });
      if (!ack.ok) throw new Error(ack.error);
    } catch {
      if (this.socket.connected) setTimeout(() => void this.join(), 500);
      return;
    }
    this.joins += 1;
    this.joined();
    await this.catchUp();
  }

  private record(seq: number, id: string, clientMessageId: string): void {
    const held = this.view.get(seq);
    if (held && (held.id !== id || held.clientMessageId !== clientMessageId))
      this.conflicts.push(`seq ${seq}: ${held.id} then ${id}`);
    if (!held) this.view.set(seq, { id, clientMessageId });
    while (this.view.has(this.contiguous + 1)) this.contiguous += 1;
  }

  /** get.php?since=<last contiguous seq>, page after page; one at a time, again if asked meanwhile. */
  catchUp(): Promise<void> {
    if (this.catchingUp) {
      this.again = true;
      return this.catchingUp;
    }
    this.catchingUp = (async () => {
      do {
        this.again = false;
        try {
          for (const m of await this.member.history(this.contiguous, { retries: 20 }))
            this.record(m.seq, m.id, m.clientMessageId);
        } catch {
          this.again = true;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      } while (this.again);
    })().finally(() => {
      this.catchingUp = undefined;
    });
    return this.catchingUp;
  }

  close(): void {
    this.socket.close();
  }
}

async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * /readyz of an instance just sent SIGTERM, polled until it stops answering 200: 503 while it
 * drains (what HAProxy sees), 0 if it closed without ever saying so.
 */
async function readinessWhileStopping(url: string): Promise<number> {
  const deadline = Date.now() + 3000;
  while (Date.now() < deadline) {
    const res = await fetch(`${url}/readyz`).catch(() => undefined);
    if (!res) return 0;
    if (res.status !== 200) {
      const body = (await res.json()) as { status?: string };
      return body.status === 'draining' ? res.status : -res.status;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return 200;
}

/** Sends one message until the server acknowledges it, retrying with the same client message id. */
async function sendUntilAcknowledged(base: string, sender: RingMember, text: string) {
  const clientMessageId = randomUUID();
  const content = await sender.encrypt(text, clientMessageId);
  for (let attempt = 0; attempt < 200; attempt++) {
    try {
      const { status, json } = await api(base, 'POST', '/api/messages/send.php', {
        token: sender.token,
        body: RingMember.sendBody(content),
        timeoutMs: 10_000,
      });
      if (status === 200)
        return { attempt, message: json.message as { id: string; seq: number }, clientMessageId };
      if (status !== 429 && status < 500) throw new Error(`send refused: ${status} ${JSON.stringify(json)}`);
    } catch (error) {
      if ((error as Error).message.startsWith('send refused')) throw error;
      // network error while an instance dies: try again
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`message of ${sender.username} never acknowledged`);
}

describe.skipIf(!DATABASE_URL || !REDIS_URL)(
  '[CLUSTER] three instances behind HAProxy on PostgreSQL, Redis and S3',
  () => {
    let cluster: Cluster;
    const opened: LiveMember[] = [];

    beforeAll(async () => {
      cluster = await startCluster({
        instances: 3,
        adminDatabaseUrl: DATABASE_URL,
        database: `securering_cluster_e2e_${process.pid}`,
        redisUrl: REDIS_URL,
        redisPrefix: `cluster-e2e-${process.pid}:`,
        fresh: true,
        dispose: true,
        admin: ADMIN,
        // One client IP creates dozens of members here; login rate limits are tested elsewhere.
        env: { RATE_LIMIT_PUBLIC_PER_MIN: '0', LOG_LEVEL: 'warn' },
      });
    }, 180_000);

    afterAll(async () => {
      for (const live of opened) live.close();
      await cluster?.stop();
    });

    it('[CLUSTER] readiness names each dependency, and each instance serves the shared data', async () => {
      for (const instance of cluster.instances) {
        const res = await fetch(`${instance.url}/readyz`);
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({
          status: 'ok',
          checks: { database: 'ok', redis: 'ok', storage: 'ok' },
        });
        expect((await fetch(`${instance.url}/healthz`)).status).toBe(200);
      }
      const plans = await Promise.all(
        cluster.instances.map(async (i) => (await fetch(`${i.url}/api/subscriptions/plans.php`)).json()),
      );
      expect(new Set(plans.map((p) => JSON.stringify(p))).size).toBe(1);
    });

    it('[CLUSTER] a resumable upload (tus) keeps reaching the instance that holds its bytes', async () => {
      const { owner } = await ringWithSenders(cluster.url, e2ee, { admin: ADMIN, members: 0 });
      const epochKey = owner.epochKeys.get(1)!;
      const fileId = randomUUID();
      const wrapped = JSON.stringify(
        await e2ee.wrapFileKey(e2ee.generateFileKey(), epochKey, { ringId: owner.ringId, fileId }),
      );
      const name = e2ee.encryptName(epochKey.namesKey, owner.ringId, 'rapport.pdf');
      const metadata = Object.entries({ name, original_name: name, file_id: fileId, file_key: wrapped })
        .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
        .join(',');
      const headers = { authorization: `Bearer ${owner.token}`, 'tus-resumable': '1.0.0' };
      const created = await fetch(`${cluster.url}/api/rings/files/tus`, {
        method: 'POST',
        headers: {
          ...headers,
          'upload-length': String(e2ee.ciphertextSize(1024 * 1024)),
          'upload-metadata': metadata,
        },
      });
      expect(created.status, await created.clone().text()).toBe(201);
      const location = created.headers.get('location')!;
      // Round-robin alone would send two HEADs in three to an instance without the upload (404).
      for (let i = 0; i < 9; i++) {
        const head = await fetch(`${cluster.url}${location}`, { method: 'HEAD', headers });
        expect(head.status).toBe(200);
        expect(head.headers.get('upload-offset')).toBe('0');
      }
    });

    it('[CLUSTER] a member of an instance killed with SIGKILL shows offline to the others within 30 s', async () => {
      const { ringId, customerToken, owner } = await subscribedRing(cluster.url, e2ee, { admin: ADMIN });
      const [alice] = await inviteMembers(cluster.url, e2ee, {
        customerToken,
        ringId,
        count: 1,
        prefix: 'alice',
      });
      const [first, , third] = cluster.instances as [
        Cluster['instances'][0],
        Cluster['instances'][0],
        Cluster['instances'][0],
      ];
      // The owner watches from the first instance; Alice is on the third, and does not come back.
      const watcher = new LiveMember(owner, first.url);
      opened.push(watcher);
      await watcher.firstJoin;
      const gone = new LiveMember(alice!, third.url, { reconnection: false });
      opened.push(gone);
      await gone.firstJoin;
      await waitUntil(
        () => watcher.presence.some((p) => p.userId === alice!.memberId && p.status === 'online'),
        10_000,
        'alice online',
      );
      const killedAt = Date.now();
      await third.kill();
      await waitUntil(
        () => watcher.presence.some((p) => p.userId === alice!.memberId && p.status === 'offline'),
        30_000,
        'alice offline for the owner',
      );
      const offlineAfterMs = Date.now() - killedAt;
      expect(offlineAfterMs).toBeLessThan(30_000);
      console.log(`[CLUSTER] presence: offline ${offlineAfterMs} ms after SIGKILL`);
      // The Ring session survives the crash: Alice's token works on another instance.
      expect((await api(first.url, 'GET', '/api/rings/info.php', { token: alice!.token })).status).toBe(200);
      await third.start();
      await cluster.waitForState(third.name, true);
      watcher.close();
      gone.close();
    });

    it('[CLUSTER] chaos: 30 members on 3 instances, 1,000 messages, one SIGKILL and one graceful restart mid-burst — every acknowledged message once, in order, on every client', async () => {
      const SENDERS = 20;
      const TOTAL = 1000;
      const { members, owner, senders } = await ringWithSenders(cluster.url, e2ee, {
        admin: ADMIN,
        members: 29,
        senders: SENDERS,
        concurrency: 6,
      });
      const everyone = [owner, ...members];
      expect(everyone).toHaveLength(30);
      const clients = everyone.map((member) => new LiveMember(member, cluster.url));
      opened.push(...clients);
      await Promise.all(clients.map((c) => c.firstJoin));
      const spread = await cluster.socketsPerInstance();
      console.log('[CLUSTER] sockets per instance before the burst', Object.fromEntries(spread));
      for (const instance of cluster.instances)
        expect(spread.get(instance.name) ?? 0).toBeGreaterThanOrEqual(5);

      const [, victim, drained] = cluster.instances as [
        Cluster['instances'][0],
        Cluster['instances'][0],
        Cluster['instances'][0],
      ];
      const onVictim = spread.get(victim.name) ?? 0;
      const acks: Array<{
        sender: RingMember;
        index: number;
        id: string;
        seq: number;
        clientMessageId: string;
      }> = [];
      let retried = 0;
      const events: string[] = [];
      let drainedReadyz = 0;
      let drainedExit: number | null | undefined;
      /** What the drained instance printed (warnings and errors), to see why a drain failed. */
      let drainedOutput = '';

      // The faults, driven by progress: SIGKILL at 300 acknowledged messages (then restart), a
      // graceful SIGTERM at 650 (then restart once it has exited).
      const chaos = (async () => {
        await waitUntil(() => acks.length >= 300, 120_000, '300 acks');
        await victim.kill();
        events.push(`SIGKILL ${victim.name} at ${acks.length}`);
        await victim.start();
        events.push(`${victim.name} back at ${acks.length}`);
        await waitUntil(() => acks.length >= 650, 120_000, '650 acks');
        const stopping = drained.stop('SIGTERM');
        drainedReadyz = await readinessWhileStopping(drained.url);
        events.push(`SIGTERM ${drained.name} at ${acks.length}`);
        await stopping;
        drainedExit = drained.exitCode;
        drainedOutput = drained.output();
        events.push(`${drained.name} exited (${drainedExit}) at ${acks.length}`);
        await drained.start();
        events.push(`${drained.name} back at ${acks.length}`);
      })();

      // 20 senders, 50 messages each, one after the other, paced to ~100 messages/s in all.
      const perSender = TOTAL / SENDERS;
      const started = Date.now();
      await mapLimit(senders, SENDERS, async (sender, s) => {
        for (let i = 0; i < perSender; i++) {
          const due = started + (i * SENDERS + s) * 10;
          if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
          const sent = await sendUntilAcknowledged(cluster.url, sender, `${sender.username} n°${i}`);
          if (sent.attempt > 0) retried += 1;
          acks.push({
            sender,
            index: i,
            id: sent.message.id,
            seq: sent.message.seq,
            clientMessageId: sent.clientMessageId,
          });
        }
      });
      await chaos;
      console.log(
        `[CLUSTER] ${acks.length} acknowledged in ${Date.now() - started} ms, ${retried} after a retry; ${events.join('; ')}`,
      );
      expect(drainedReadyz).toBe(503);
      expect(drainedExit, drainedOutput.slice(-4000)).toBe(0);

      // Acknowledged once each, numbered 1..1000.
      expect(new Set(acks.map((a) => a.clientMessageId)).size).toBe(TOTAL);
      expect(acks.map((a) => a.seq).sort((a, b) => a - b)).toEqual(
        Array.from({ length: TOTAL }, (_, i) => i + 1),
      );

      // Every client reaches the last message without being recreated (no reload)…
      await waitUntil(() => clients.every((c) => c.contiguous >= TOTAL), 90_000, 'every client caught up');
      const reconnected = clients.filter((c) => c.joins > 1).length;
      console.log(`[CLUSTER] clients that reconnected: ${reconnected} (${onVictim} were on ${victim.name})`);
      expect(reconnected).toBeGreaterThanOrEqual(onVictim);
      const bySeq = new Map(acks.map((a) => [a.seq, a]));
      for (const client of clients) {
        expect(client.conflicts).toEqual([]);
        expect(client.view.size).toBe(TOTAL);
        for (const [seq, held] of client.view) expect(held.id).toBe(bySeq.get(seq)?.id);
      }
      // …and every member's history holds each acknowledged message once, in sending order per sender.
      await mapLimit(everyone, 6, async (member) => {
        const history = await member.history(0, { retries: 10 });
        expect(history.map((m) => m.seq)).toEqual(Array.from({ length: TOTAL }, (_, i) => i + 1));
        expect(new Set(history.map((m) => m.clientMessageId)).size).toBe(TOTAL);
        for (const sender of senders) {
          const own = history.filter((m) => m.sender.id === sender.memberId).map((m) => m.clientMessageId);
          expect(own).toEqual(
            acks
              .filter((a) => a.sender === sender)
              .sort((a, b) => a.index - b.index)
              .map((a) => a.clientMessageId),
          );
        }
      });
      for (const client of clients) client.close();
      await cluster.waitForState(drained.name, true);
    });

    describe('[CLUSTER] in the browser', () => {
      let browser: Browser;
      beforeAll(async () => {
        browser = await launchBrowser();
      });
      afterAll(async () => {
        await browser?.close();
      });

      it('[CLUSTER] a page whose instance dies reconnects by itself, without a reload or the passphrase, and shows what it missed', async () => {
        const { ringId, customerToken, owner, email } = await subscribedRing(cluster.url, e2ee, {
          admin: ADMIN,
        });
        const [bob] = await inviteMembers(cluster.url, e2ee, {
          customerToken,
          ringId,
          count: 1,
          prefix: 'bob',
        });
        await bob!.publishKeys();
        void owner;

        const context = await newContext(browser);
        await context.addCookies([{ name: 'cookie_consent', value: 'essential', url: cluster.url }]);
        const page: Page = await context.newPage();
        const errors = trackPageErrors(page);
        let loads = 0;
        page.on('load', () => (loads += 1));
        // The page's websockets, the spare stream tokens it was given and the tokens it minted.
        let websockets = 0;
        let spareTokens = 0;
        let mints = 0;
        page.on('websocket', (ws) => {
          websockets += 1;
          ws.on('framereceived', ({ payload }) => {
            if (typeof payload === 'string' && payload.includes('"stream_token"')) spareTokens += 1;
          });
        });
        // Messages it was given in join_ring's answers, and the catch-ups it asked of get.php.
        let answeredMessages = 0;
        let answeredLists = 0;
        let answeredRevisions = 0;
        let catchUpRequests = 0;
        let keyStateReads = 0;
        // When the page last started or finished a key-state read, and how many are in flight.
        let keyStateActivityAt = Date.now();
        let keyStateReadsInFlight = 0;
        page.on('websocket', (ws) => {
          ws.on('framereceived', ({ payload }) => {
            if (typeof payload !== 'string' || !payload.includes('"ringId"')) return;
            const json = JSON.parse(payload.slice(payload.indexOf('['))) as Array<{
              missed?: Array<{ messages: unknown[] }>;
              conversations?: unknown[];
              keyRevision?: number;
            }>;
            for (const part of json[0]?.missed ?? []) answeredMessages += part.messages.length;
            if (Array.isArray(json[0]?.conversations)) answeredLists += 1;
            if (typeof json[0]?.keyRevision === 'number') answeredRevisions += 1;
          });
        });
        page.on('request', (request) => {
          if (request.url().includes('/api/rings/mint-stream-token.php')) mints += 1;
          if (/\/api\/messages\/get\.php\?.*since=/.test(request.url())) catchUpRequests += 1;
          if (request.url().includes('/api/rings/keys/state.php')) {
            keyStateReads += 1;
            keyStateReadsInFlight += 1;
            keyStateActivityAt = Date.now();
          }
        });
        const keyStateReadDone = (request: { url(): string }) => {
          if (!request.url().includes('/api/rings/keys/state.php')) return;
          keyStateReadsInFlight -= 1;
          keyStateActivityAt = Date.now();
        };
        page.on('requestfinished', keyStateReadDone);
        page.on('requestfailed', keyStateReadDone);
        await page.goto(`${cluster.url}/ring`);
        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Mot de passe', { exact: true }).fill(DRIVER_CUSTOMER_PASSWORD);
        await page.getByRole('button', { name: 'Se connecter' }).click();
        const dialog = page.getByRole('dialog', { name: 'Phrase secrète' });
        await dialog.waitFor();
        await dialog.getByLabel('Phrase secrète', { exact: true }).fill('la grappe tient bon sous la charge');
        const confirm = dialog.getByLabel('Confirmer la phrase secrète');
        const chosen = (await confirm.count()) > 0;
        if (chosen) await confirm.fill('la grappe tient bon sous la charge');
        await dialog.getByRole('button', { name: chosen ? 'Créer ma phrase secrète' : 'Déverrouiller' }).click();
        if (chosen) await saveRecoveryKey(page);
        await page.locator('[data-e2ee-state="active"]').first().waitFor({ timeout: 30_000 });
        // Bob published his keys first and waits for admission: the owner admits him in the room,
        // and its browser creates the epoch that reaches him.
        await page.getByRole('button', { name: `Admettre ${bob!.username}` }).click();
        const admission = page.getByRole('dialog', { name: `Admettre ${bob!.username}` });
        await admission.getByRole('button', { name: 'Admettre', exact: true }).click();
        await admission.waitFor({ state: 'detached' });
        await waitUntil(
          async () => (await bob!.loadKeys(), bob!.epochKeys.size > 0),
          20_000,
          'bob holds the epoch his admission started',
        );

        const log = page.getByRole('log', { name: 'Messages' });
        const say = async (text: string) => sendUntilAcknowledged(cluster.url, bob!, text);
        await say('Avant la panne');
        await log.getByText('Avant la panne').waitFor({ timeout: 15_000 });

        // The instance holding the page's websocket, as HAProxy counts tunnels.
        const spread = await cluster.socketsPerInstance();
        const holder = cluster.instances.find((i) => (spread.get(i.name) ?? 0) > 0);
        expect(holder, JSON.stringify(Object.fromEntries(spread))).toBeDefined();
        await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
        // A connected page takes its next connection's stream token over the socket (within 30 s).
        await waitUntil(async () => spareTokens > 0, 40_000, 'the page holds a spare stream token');
        // The admission's key work (epoch, shares, the keys_changed each write sends back, each
        // read 250 ms after) has settled: no key-state read in flight or started for 2 s.
        await waitUntil(
          () => keyStateReadsInFlight === 0 && Date.now() - keyStateActivityAt > 2_000,
          30_000,
          'the page is done reading its key state',
        );
        const loadsBefore = loads;
        const websocketsBefore = websockets;
        const mintsBefore = mints;
        const catchUpsBefore = catchUpRequests;
        const answeredBefore = answeredMessages;
        const listsBefore = answeredLists;
        const revisionsBefore = answeredRevisions;
        const keyStateReadsBefore = keyStateReads;
        await holder!.kill();
        for (const text of ['Pendant la panne 1', 'Pendant la panne 2', 'Pendant la panne 3'])
          await say(text);
        for (const text of ['Pendant la panne 1', 'Pendant la panne 2', 'Pendant la panne 3'])
          await log.getByText(text).waitFor({ timeout: 30_000 });
        await screenshot(page, 'cluster-reconnected');

        expect(loads).toBe(loadsBefore);
        // It reconnected on a new websocket with its spare token: no stream token minted over HTTP.
        expect(websockets).toBeGreaterThan(websocketsBefore);
        expect(mints).toBe(mintsBefore);
        // What it missed came in join_ring's answer or as pushes after it: no get.php catch-up.
        expect(catchUpRequests).toBe(catchUpsBefore);
        // …and the answer brought the conversation list again (unread counts), and the Ring's key
        // revision: no key changed meanwhile, so the page did not read its key state again.
        expect(answeredLists).toBeGreaterThan(listsBefore);
        expect(answeredRevisions).toBeGreaterThan(revisionsBefore);
        expect(keyStateReads).toBe(keyStateReadsBefore);
        console.log(
          `[CLUSTER] reconnection: ${answeredMessages - answeredBefore} missed message(s) in join_ring's answer`,
        );
        expect(
          await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument),
        ).toBe(true);
        expect(await page.getByRole('dialog', { name: 'Phrase secrète' }).count()).toBe(0);
        // Each message once, in order.
        const texts = await log.locator('article').allTextContents();
        const order = [
          'Avant la panne',
          'Pendant la panne 1',
          'Pendant la panne 2',
          'Pendant la panne 3',
        ].map((t) => texts.findIndex((x) => x.includes(t)));
        expect(order.every((v, i) => v >= 0 && (i === 0 || v > order[i - 1]!))).toBe(true);
        for (const t of ['Pendant la panne 1', 'Pendant la panne 2'])
          expect(texts.filter((x) => x.includes(t))).toHaveLength(1);
        // The page now talks to another instance; the killed one comes back and serves the same session.
        const socketsNow = await cluster.socketsPerInstance();
        expect(socketsNow.get(holder!.name) ?? 0).toBe(0);
        await holder!.start();
        expect((await api(holder!.url, 'GET', '/api/rings/info.php', { token: bob!.token })).status).toBe(
          200,
        );
        const relevant = errors.filter(
          (e) => !/Failed to load resource|socket\.io|WebSocket|502|503/.test(e),
        );
        expect(relevant).toEqual([]);
        await context.close();
      });
    });

    it('[CLUSTER] drains on SIGTERM: readiness fails first, the process exits 0 within the drain and shutdown time', async () => {
      const [first] = cluster.instances as [Cluster['instances'][0]];
      const started = Date.now();
      const stopping = first.stop('SIGTERM');
      expect(await readinessWhileStopping(first.url)).toBe(503);
      await stopping;
      expect(first.exitCode).toBe(0);
      expect(Date.now() - started).toBeLessThan(CLUSTER_DRAIN_MS + 15_000);
      await first.start();
      await cluster.waitForState(first.name, true);
      // Nothing acknowledged was lost meanwhile: reading through HAProxy works on the restarted set.
      expect((await apiOk(cluster.url, 'GET', '/api/subscriptions/plans.php')).success).toBe(true);
    });
  },
);
