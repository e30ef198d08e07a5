// Several instances under load (issue 16), on the production shape of `npm run cluster`: three
// built instances on PostgreSQL, Redis and a local S3 server behind HAProxy (scripts/lib/cluster.mjs).
//
// 1. Load: a Ring of 300 members whose sockets HAProxy spreads over the 3 instances; 50 messages/s
//    for 60 s sent through `messages/send.php` (real end-to-end envelopes, 50 senders, each within
//    its send budget) through HAProxy. Reports send-to-receive latency (from the POST to each
//    socket's `new_message`), missing deliveries, errors, and the CPU time of each instance.
// 2. Restart storm: 1,000 sockets (10 Rings of 100 members with published keys, holding the
//    Ring's epoch) connected straight to one instance, which is killed (SIGKILL) and started
//    again. Each client behaves as the web client does (scripts/lib/ring-driver.mjs
//    connectRingClient: reconnection delays of the contract's reconnectDelayMs, the spare stream
//    token taken while connected or else one minted over HTTP, join_ring naming the room and its
//    highest sequence number, whose answer carries the messages sent meanwhile; get.php?since= only
//    past that answer's page). Reports the instance's start-up time, the time
//    until all 1,000 are back and caught up (from the kill, and from the instance answering
//    again), where the time of each client's last attempt went (token, handshake, join, catch-up)
//    and how many attempts it took, the CPU of every process from the instance's readiness until
//    the last socket is back (where the machine's two cores went), the event-loop delay of the load
//    generator's threads, and the instance's memory per socket: its live heap and Buffers after a
//    full collection (read through its inspector, on loopback) with 1,000 joined sockets minus
//    before they connected, and after the storm minus freshly restarted, divided by the sockets.
//
// Needs PostgreSQL, Redis and HAProxy (as `npm run cluster`). Prints Markdown for docs/BENCHMARKS.md.
// Usage: node scripts/build.mjs && node bench/cluster.mjs   (npm run bench:cluster)
//   BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/postgres), REDIS_URL (redis://127.0.0.1:6379),
//   BENCH_MEMBERS (300), BENCH_RATE (50 /s), BENCH_SECONDS (60), BENCH_STORM_SOCKETS (1000),
//   BENCH_STORM_RING_SIZE (100), BENCH_SKIP_LOAD=1 / BENCH_SKIP_STORM=1 (one part only),
//   BENCH_CPU_PROF=dir (the instance restarted by the storm writes a CPU profile there),
//   BENCH_STORM_NO_CATCHUP=1 (diagnosis only, unlike a browser: no catch-up at the join, to see
//   what it costs; the report says so), BENCH_STORM_BROWSER_READS=1 (each client also does what
//   the web room page does after a rejoin: its join asks for the conversation list, and once back
//   it reads its key state again unless join_ring's answer carries the key revision of the state it
//   holds; the storm then ends when that is answered), BENCH_NO_ANALYZE=1 (no ANALYZE after
//   seeding: PostgreSQL plans without statistics where autovacuum is off), BENCH_KEEP_DATABASE=1
//   (the bench database is left for inspection)
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { io } from 'socket.io-client';

const wallNow = () => performance.timeOrigin + performance.now();

/**
 * Rows of the storm's memory table: [label, RSS MiB, memory after GC, memory it grew from, sockets].
 * The per-socket figure is the growth of the live heap plus Buffers after a full collection.
 */
function memoryRows(rows) {
  return rows.map(([label, rss, memory, from, sockets]) => [
    label,
    rss.toFixed(0),
    memory.heap.toFixed(1),
    memory.external.toFixed(1),
    from ? (((memory.heap + memory.external - from.heap - from.external) * 1024) / sockets).toFixed(1) : '',
  ]);
}

if (!isMainThread) {
  const { mode } = workerData;
  if (mode === 'receivers') {
    // Load: each socket of this thread joins the Ring through HAProxy; arrival times by client id.
    const { url, tokens, ringId } = workerData;
    const arrivals = new Map();
    const sockets = [];
    let joined = 0;
    for (const token of tokens) {
      const socket = io(url, {
        path: '/socket.io',
        transports: ['websocket'],
        reconnection: false,
        auth: { token },
      });
      socket.on('new_message', (event) => {
        const at = wallNow();
        const list = arrivals.get(event.clientMessageId);
        if (list) list.push(at);
        else arrivals.set(event.clientMessageId, [at]);
      });
      socket.on('connect', async () => {
        const ack = await socket.timeout(10_000).emitWithAck('join_ring', { ringId });
        if (!ack.ok) parentPort.postMessage({ type: 'error', error: `join refused: ${ack.error}` });
        else if (++joined === tokens.length) parentPort.postMessage({ type: 'joined' });
      });
      socket.on('connect_error', (error) => parentPort.postMessage({ type: 'error', error: error.message }));
      socket.on('disconnect', (reason) => parentPort.postMessage({ type: 'disconnect', reason }));
      sockets.push(socket);
    }
    parentPort.on('message', (message) => {
      if (message.type !== 'collect') return;
      const latencies = [];
      let deliveries = 0;
      for (const [clientMessageId, sentAt] of message.sent) {
        const list = arrivals.get(clientMessageId) ?? [];
        for (const at of list) latencies.push(at - sentAt);
        deliveries += list.length;
      }
      for (const socket of sockets) socket.close();
      parentPort.postMessage({ type: 'collected', latencies, deliveries });
    });
  } else {
    // Storm: sockets straight to one instance, each opened and kept as the web client does
    // (scripts/lib/ring-driver.mjs connectRingClient, on the contract's RING_CONNECTION), with the
    // page's catch-up by sequence number in each join_ring's answer.
    const { connectRingClient } = await import('../scripts/lib/ring-driver.mjs');
    const { loadContract } = await import('../scripts/lib/workspace-bundle.mjs');
    const contract = await loadContract();
    const { url, members, skipCatchUp, browserReads } = workerData;
    const clients = members.map((member) => ({
      member,
      lastSeq: 0,
      joins: 0,
      attempts: 0,
      retries: 0,
      retryAt: 0,
      attemptAt: 0,
      tokenAt: 0,
      connectAt: 0,
      joinedAt: 0,
      backAt: 0,
      spare: false,
      usedSpare: false,
      /** Joins whose answer carried missed messages, and catch-ups that still needed get.php. */
      answered: 0,
      httpCatchUps: 0,
      /** With BENCH_STORM_BROWSER_READS=1: when the page's reads after a rejoin were answered. */
      settledAt: 0,
      /** With BENCH_STORM_BROWSER_READS=1: the key revision of the key state it holds, and reads of it. */
      keyRevision: undefined,
      keyStateReads: 0,
    }));
    let phase = 'connect';
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    // Before the kill a client counts once it joined and holds its spare stream token (a page
    // that has been open a while holds one); in the storm, once back and caught up.
    // At most every 50 ms (each client's own times are recorded as they happen).
    let reportTimer;
    const report = () => {
      reportTimer ??= setTimeout(() => {
        reportTimer = undefined;
        const back = clients.filter((c) =>
          phase === 'connect' ? c.joins >= 1 && c.spare : browserReads ? c.settledAt > 0 : c.backAt > 0,
        ).length;
        parentPort.postMessage({ type: 'progress', back });
      }, 50);
    };
    // The catch-up's HTTP client: node:http on kept-alive connections, the body decompressed in
    // one call. It asks for the same thing as a browser (brotli or gzip), for less of the load
    // generator's CPU than fetch, which shares the two cores with the instances it measures.
    const catchUpAgent = new http.Agent({ keepAlive: true, maxSockets: 256 });
    const getJson = (path, token) =>
      new Promise((resolve, reject) => {
        const target = new URL(url);
        const req = http.get(
          {
            host: target.hostname,
            port: target.port,
            path,
            agent: catchUpAgent,
            timeout: 10_000,
            headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'br, gzip' },
          },
          (res) => {
            const chunks = [];
            res.on('data', (chunk) => chunks.push(chunk));
            res.on('error', reject);
            res.on('end', () => {
              try {
                const raw = Buffer.concat(chunks);
                const encoding = res.headers['content-encoding'];
                const body =
                  encoding === 'br'
                    ? zlib.brotliDecompressSync(raw)
                    : encoding === 'gzip'
                      ? zlib.gunzipSync(raw)
                      : raw;
                if (res.statusCode !== 200) reject(new Error(`${res.statusCode}`));
                else resolve(JSON.parse(body.toString()));
              } catch (error) {
                reject(error);
              }
            });
          },
        );
        req.on('timeout', () => req.destroy(new Error('timeout')));
        req.on('error', reject);
      });
    for (const client of clients) {
      const { member } = client;
      /** What the page does past join_ring's answer (its page full, or not answered): get.php. */
      const catchUp = async () => {
        for (;;) {
          try {
            const page = await getJson(
              `/api/messages/get.php?conversation_id=room%3Ageneral&since=${client.lastSeq}&limit=100`,
              member.token,
            );
            for (const m of page.messages) client.lastSeq = Math.max(client.lastSeq, m.seq);
            if (!page.hasMore) return;
          } catch {
            await new Promise((resolve) => setTimeout(resolve, 500));
          }
        }
      };
      const socket = connectRingClient(contract, url, member, {
        onRetry: () => {
          client.retryAt = wallNow();
          if (phase === 'storm') client.retries += 1;
        },
        onAttempt: () => {
          client.attemptAt = wallNow();
          client.tokenAt = 0;
          client.connectAt = 0;
          if (phase === 'storm') client.attempts += 1;
        },
        onToken: ({ spare }) => {
          client.tokenAt = wallNow();
          client.usedSpare = spare;
          if (spare) client.spare = false;
        },
        onSpare: () => {
          const first = !client.spare;
          client.spare = true;
          if (first) report();
        },
        // As the web client: after its first join the page names the room it holds, with its
        // highest sequence number, and join_ring's answer carries what it missed (and, with
        // BENCH_STORM_BROWSER_READS=1, the conversation list and the Ring's key revision, as a
        // room page asks).
        joinRequest: () => ({
          ...(client.joins > 0 && !skipCatchUp
            ? { catchUp: [{ conversationId: 'room:general', since: client.lastSeq }] }
            : {}),
          ...(browserReads ? { conversations: true, keyRevision: true } : {}),
        }),
        onJoined: async (answer, asked) => {
          client.joinedAt = wallNow();
          client.joins += 1;
          const room = (answer.missed ?? []).find((m) => m.conversationId === 'room:general');
          for (const m of room?.messages ?? []) client.lastSeq = Math.max(client.lastSeq, m.seq);
          if (room?.messages.length) client.answered += 1;
          /** The room page's key-state read at a join: unless the answer's revision is the one held. */
          const readKeyState = async () => {
            if (client.keyRevision !== undefined && answer.keyRevision === client.keyRevision) return;
            for (;;) {
              try {
                client.keyRevision = (await getJson('/api/rings/keys/state.php', member.token)).keyRevision;
                client.keyStateReads += 1;
                return;
              } catch {
                await new Promise((resolve) => setTimeout(resolve, 500));
              }
            }
          };
          // A page read its key state when it opened.
          if (browserReads && phase === 'connect' && client.keyRevision === undefined) await readKeyState();
          if (phase === 'storm' && client.backAt === 0) {
            if (!skipCatchUp && (!asked.catchUp || !room || room.hasMore)) {
              client.httpCatchUps += 1;
              await catchUp();
            }
            client.backAt = wallNow();
            // What the room page also does after a rejoin: read its key state again (events may
            // have been missed) unless the answer's key revision is the one of the state it holds;
            // its conversation list comes in the join's answer.
            if (browserReads) {
              for (;;) {
                try {
                  // Without the list in the answer, the page reads it over HTTP (as the web does).
                  await Promise.all([
                    readKeyState(),
                    answer.conversations ? undefined : getJson('/api/conversations/list.php', member.token),
                  ]);
                  break;
                } catch {
                  await new Promise((resolve) => setTimeout(resolve, 500));
                }
              }
              client.settledAt = wallNow();
            }
          }
          report();
        },
      });
      socket.on('connect', () => (client.connectAt = wallNow()));
      socket.on('new_message', (event) => {
        if (event.conversationId === 'room:general') client.lastSeq = Math.max(client.lastSeq, event.seq);
      });
      client.socket = socket;
    }
    parentPort.on('message', (message) => {
      if (message.type === 'storm') {
        phase = 'storm';
        for (const client of clients) {
          client.backAt = 0;
          client.settledAt = 0;
          client.keyStateReads = 0;
        }
        loopDelay.reset();
        loopDelay.enable();
      } else if (message.type === 'collect') {
        loopDelay.disable();
        parentPort.postMessage({
          type: 'collected',
          // This load-generator thread during the storm: is it the bottleneck?
          loop: {
            p50: loopDelay.percentile(50) / 1e6,
            p99: loopDelay.percentile(99) / 1e6,
            max: loopDelay.max / 1e6,
          },
          clients: clients.map((c) => ({
            backAt: c.backAt,
            lastSeq: c.lastSeq,
            joins: c.joins,
            attempts: c.attempts,
            retries: c.retries,
            retryAt: c.retryAt,
            usedSpare: c.usedSpare,
            joinedAt: c.joinedAt,
            answered: c.answered,
            httpCatchUps: c.httpCatchUps,
            settledAt: c.settledAt,
            keyStateReads: c.keyStateReads,
            // The attempt that brought it back: connecting, minting its token, the handshake,
            // join_ring, catch-up.
            openMs: c.attemptAt - c.retryAt,
            mintMs: c.tokenAt - c.attemptAt,
            handshakeMs: c.connectAt - c.tokenAt,
            joinMs: c.joinedAt - c.connectAt,
            catchUpMs: c.backAt - c.joinedAt,
            attemptToBackMs: c.backAt - c.attemptAt,
          })),
        });
        for (const c of clients) c.socket.close();
      }
    });
  }
} else {
  const {
    BENCH_ADMIN,
    analyzeSeeded,
    cpuSeconds,
    commandCpuSnapshot,
    commandCpuUsed,
    machine,
    machineCpuSeconds,
    memoryAfterGc,
    percentile,
    rssMiB,
    table,
    withPg,
  } = await import('./support.mjs');
  const { HAPROXY_BIN, freePort, startCluster } = await import('../scripts/lib/cluster.mjs');
  const { loadE2ee } = await import('../scripts/lib/workspace-bundle.mjs');
  const { RingMember, inviteMembers, mapLimit, ringWithSenders, subscribedRing } =
    await import('../scripts/lib/ring-driver.mjs');

  const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 300);
  const RATE = Number(process.env.BENCH_RATE ?? 50);
  const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
  const SENDERS = 50;
  const STORM_SOCKETS = Number(process.env.BENCH_STORM_SOCKETS ?? 1000);
  const STORM_RING_SIZE = Number(process.env.BENCH_STORM_RING_SIZE ?? 100);
  const here = fileURLToPath(import.meta.url);

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const load = () =>
    os
      .loadavg()
      .map((n) => n.toFixed(1))
      .join(' ');

  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  function post(url, headers, body) {
    return new Promise((resolve, reject) => {
      const target = new URL(url);
      const data = Buffer.from(JSON.stringify(body));
      const req = http.request(
        {
          method: 'POST',
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          agent,
          timeout: 15_000,
          headers: { 'content-type': 'application/json', 'content-length': data.length, ...headers },
        },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', reject);
      req.end(data);
    });
  }

  function startWorker(data, { ready }) {
    const worker = new Worker(here, { workerData: data });
    const messages = [];
    worker.on('message', (m) => messages.push(m));
    const readyPromise = new Promise((resolve, reject) => {
      worker.on('message', (m) => {
        if (ready(m)) resolve();
        if (m.type === 'error') reject(new Error(m.error));
      });
      worker.once('error', reject);
    });
    return {
      worker,
      messages,
      ready: readyPromise,
      async collect(extra = {}) {
        const done = new Promise((resolve) =>
          worker.on('message', (m) => m.type === 'collected' && resolve(m)),
        );
        worker.postMessage({ type: 'collect', ...extra });
        const result = await done;
        await worker.terminate();
        return result;
      },
    };
  }

  const e2ee = await loadE2ee();
  const setupStarted = Date.now();
  console.error('Starting the cluster (3 instances, HAProxy, PostgreSQL, Redis, S3)…');
  const cluster = await startCluster({
    instances: 3,
    adminDatabaseUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    database: `securering_bench_cluster_${process.pid}`,
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    redisPrefix: `bench-cluster-${process.pid}:`,
    fresh: true,
    dispose: process.env.BENCH_KEEP_DATABASE !== '1',
    admin: BENCH_ADMIN,
    // One client IP creates hundreds of members; request logs would cost CPU the figures should not.
    env: { RATE_LIMIT_PUBLIC_PER_MIN: '0', RATE_LIMIT_KEY_WRITES_PER_MIN: '0', LOG_LEVEL: 'warn' },
  });
  const out = [];
  try {
    out.push(`# Several instances — ${machine()}\n`);
    out.push(
      `3 instances (built server, NODE_ENV=production) on PostgreSQL ${await pgVersion(cluster.databaseUrl)}, ` +
        `Redis and a local S3 server (s3rver), behind HAProxy ${haproxyVersion()}; load generator on the same machine.\n`,
    );

    if (!process.env.BENCH_SKIP_LOAD) {
      console.error(`Load: a Ring of ${MEMBERS} members…`);
      const ring = await ringWithSenders(cluster.url, e2ee, {
        admin: BENCH_ADMIN,
        members: MEMBERS - 1,
        senders: SENDERS,
        concurrency: 6,
      });
      const everyone = [ring.owner, ...ring.members];
      const tokens = await mapLimit(everyone, 8, (member) => member.mintStreamToken());
      const statistics = await analyzeSeeded(cluster.databaseUrl);
      const total = RATE * SECONDS;
      const text =
        'Un message de la conversation, de la longueur d’une phrase ordinaire, envoyé à tout le Ring.';
      // Encrypted when sent, under the sender's newest epoch (the Ring needs a new epoch every
      // 1,000 messages at the standard level: rotated ahead from the 900th, as browsers do).
      const messages = Array.from({ length: total }, (_, i) => ({
        sender: ring.senders[i % ring.senders.length],
        clientMessageId: crypto.randomUUID(),
        text: `${text} n°${i}`,
      }));
      let currentEpoch = 1;
      let rotations = 0;
      let rotating;
      /** A new epoch by the owner, shared with every sender, once for all the sends refused meanwhile. */
      const renewEpoch = (seen) => {
        if (currentEpoch > seen) return rotating;
        rotating ??= (async () => {
          currentEpoch = await ring.owner.rotate();
          await mapLimit(ring.senders.slice(1), 10, (sender) => sender.loadKeys());
          rotations += 1;
        })().finally(() => (rotating = undefined));
        return rotating;
      };
      const sendOne = async (m) => {
        for (let attempt = 0; ; attempt++) {
          const epoch = Math.max(...m.sender.epochKeys.keys());
          const content = await m.sender.encrypt(m.text, m.clientMessageId);
          const res = await post(
            `${cluster.url}/api/messages/send.php`,
            { authorization: `Bearer ${m.sender.token}` },
            RingMember.sendBody(content),
          );
          if (res.status === 409 && /rotation_required|epoch_stale/.test(res.body) && attempt < 5) {
            await renewEpoch(epoch);
            continue;
          }
          // The epoch nears its limit (rotationSoon): the next one in the background, as browsers do.
          if (res.status === 200 && res.body.includes('"rotationSoon":true'))
            Promise.resolve(renewEpoch(epoch)).catch((error) =>
              console.error(`rotation ahead failed: ${error?.message ?? error}`),
            );
          return res;
        }
      };
      const half = Math.ceil(tokens.length / 2);
      const groups = [tokens.slice(0, half), tokens.slice(half)].map((part) =>
        startWorker(
          { mode: 'receivers', url: cluster.url, tokens: part, ringId: ring.ringId },
          { ready: (m) => m.type === 'joined' },
        ),
      );
      await Promise.all(groups.map((g) => g.ready));
      const spread = await cluster.socketsPerInstance();
      console.error(`Load: ${RATE} messages/s for ${SECONDS} s…`);
      const loadBefore = load();
      /** How often HAProxy's checks took each instance out (UP to DOWN), from its statistics. */
      const checkDowns = async () =>
        new Map(
          (await cluster.stats())
            .filter((row) => row.pxname === 'api' && row.svname.startsWith('s'))
            .map((row) => [row.svname, Number(row.chkdown)]),
        );
      const downsBefore = await checkDowns();
      const pids = cluster.instances.map((i) => i.pid);
      const cpuBefore = pids.map(cpuSeconds);
      const sent = new Map();
      const errors = [];
      const started = performance.now();
      const inFlight = [];
      for (let i = 0; i < messages.length; i++) {
        const due = started + (i * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        const m = messages[i];
        sent.set(m.clientMessageId, wallNow());
        inFlight.push(
          sendOne(m).then(
            (res) => res.status !== 200 && errors.push(`${res.status} ${res.body.slice(0, 100)}`),
            (error) => errors.push(error.message),
          ),
        );
      }
      await Promise.all(inFlight);
      const sendingSeconds = (performance.now() - started) / 1000;
      const downs = [...(await checkDowns())].map(
        ([name, n]) => `${name} ${n - (downsBefore.get(name) ?? 0)}`,
      );
      const errorsByAnswer = new Map();
      for (const error of errors) {
        const answer = error.split(' ')[0];
        errorsByAnswer.set(answer, (errorsByAnswer.get(answer) ?? 0) + 1);
      }
      await sleep(3000);
      const cpu = pids.map((pid, i) => cpuSeconds(pid) - cpuBefore[i]);
      const rss = pids.map(rssMiB);
      // Sockets the servers dropped during the run (collect() closes the rest afterwards).
      const disconnects = groups.flatMap((g) => g.messages.filter((m) => m.type === 'disconnect'));
      const results = [];
      for (const g of groups) results.push(await g.collect({ sent: [...sent] }));
      const latencies = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
      const deliveries = results.reduce((n, r) => n + r.deliveries, 0);
      const expected = total * MEMBERS;
      out.push(`## Load: ${MEMBERS} members over 3 instances, ${RATE} messages/s for ${SECONDS} s\n`);
      out.push(
        `Sockets per instance (HAProxy, leastconn): ${[...spread].map(([k, v]) => `${k} ${v}`).join(', ')}. ` +
          `${SENDERS} senders, ${total} messages sent in ${sendingSeconds.toFixed(1)} s (latency from the first attempt; ` +
          `${rotations} key rotations on the way, sends refused meanwhile encrypted again and retried); ` +
          `load average before ${loadBefore}, after ${load()}. ` +
          `${((total - errors.length) / sendingSeconds).toFixed(1)} sends accepted per second; send errors by answer: ` +
          `${[...errorsByAnswer].map(([answer, n]) => `${answer} × ${n}`).join(', ') || 'none'}; ` +
          `times HAProxy's checks took an instance out during the run: ${downs.join(', ')}. ` +
          `Planner statistics: ${statistics}.\n`,
      );
      out.push(
        table(
          [
            'Messages',
            'Deliveries expected',
            'Delivered',
            'Missing',
            'Send errors',
            'Socket drops',
            'p50 ms',
            'p99 ms',
            'max ms',
          ],
          [
            [
              String(total),
              String(expected),
              String(deliveries),
              String(expected - deliveries),
              String(errors.length),
              String(disconnects.length),
              percentile(latencies, 50).toFixed(1),
              percentile(latencies, 99).toFixed(1),
              (latencies[latencies.length - 1] ?? 0).toFixed(1),
            ],
          ],
        ),
      );
      out.push('');
      out.push(
        table(
          ['Instance', 'Sockets', 'CPU s over the run', 'CPU % of one core', 'RSS MiB'],
          cluster.instances.map((instance, i) => [
            instance.name,
            String(spread.get(instance.name) ?? 0),
            cpu[i].toFixed(1),
            ((cpu[i] / (sendingSeconds + 3)) * 100).toFixed(0),
            rss[i].toFixed(0),
          ]),
        ),
      );
      if (errors.length) out.push(`\nFirst errors: ${errors.slice(0, 5).join('; ')}`);
      out.push('');
    }

    if (!process.env.BENCH_SKIP_STORM) {
      const target = cluster.instances[0];
      const ringCount = Math.ceil(STORM_SOCKETS / STORM_RING_SIZE);
      console.error(`Storm: ${ringCount} Rings of ${STORM_RING_SIZE} members…`);
      const rings = await mapLimit(
        Array.from({ length: ringCount }, (_, i) => i),
        2,
        async (i) => {
          const { customerToken, ringId, owner } = await subscribedRing(cluster.url, e2ee, {
            admin: BENCH_ADMIN,
            ringName: `Tempête ${i + 1}`,
          });
          const invited = await inviteMembers(cluster.url, e2ee, {
            customerToken,
            ringId,
            count: STORM_RING_SIZE - 1,
            prefix: `t${i + 1}m`,
            concurrency: 3,
          });
          // As in browsers, every member has published its keys, was admitted and holds the Ring's epoch: each
          // join's key nudge then reads the member and its epochs, and finds nothing lacking.
          await owner.publishKeys();
          await owner.startLog();
          await mapLimit(invited, 2, (member) => member.publishKeys());
          await owner.admit(invited);
          await owner.rotate();
          return { owner, members: [owner, ...invited] };
        },
      );
      const members = rings.flatMap((r) => r.members).slice(0, STORM_SOCKETS);
      const statistics = await analyzeSeeded(cluster.databaseUrl);
      const plain = members.map((m) => ({ token: m.token, ringId: m.ringId }));
      // The target runs with its inspector open on loopback, to read its memory after a full
      // collection (memoryAfterGc): restarted once here, so it starts the storm fresh as well.
      const inspectPort = await freePort();
      const inspect = [`--inspect=127.0.0.1:${inspectPort}`];
      await target.stop();
      await target.start({ nodeArgs: inspect });
      const half = Math.ceil(plain.length / 2);
      const progress = [0, 0];
      const groups = [plain.slice(0, half), plain.slice(half)].map((part, g) => {
        const group = startWorker(
          {
            mode: 'storm',
            url: target.url,
            members: part,
            skipCatchUp: process.env.BENCH_STORM_NO_CATCHUP === '1',
            browserReads: process.env.BENCH_STORM_BROWSER_READS === '1',
          },
          { ready: (m) => m.type === 'progress' && m.back === part.length },
        );
        group.worker.on('message', (m) => m.type === 'progress' && (progress[g] = m.back));
        return group;
      });
      await sleep(2000);
      const rssBefore = rssMiB(target.pid);
      const memoryBefore = await memoryAfterGc(inspectPort);
      console.error(`Storm: connecting ${plain.length} sockets to ${target.name}…`);
      const connectStarted = Date.now();
      await Promise.all(groups.map((g) => g.ready));
      const connectMs = Date.now() - connectStarted;
      await sleep(3000);
      const rssConnected = rssMiB(target.pid);
      const memoryConnected = await memoryAfterGc(inspectPort);
      // Messages the clients miss while the instance is down, sent through the other instances.
      const missed = 5;
      const loadBeforeStorm = load();
      const killedAt = wallNow();
      await target.kill();
      progress.fill(0);
      for (const g of groups) g.worker.postMessage({ type: 'storm' });
      for (const ring of rings)
        for (let i = 0; i < missed; i++) {
          const content = await ring.owner.encrypt(`Pendant le redémarrage n°${i}`);
          const res = await ring.owner.call('POST', '/api/messages/send.php', RingMember.sendBody(content), {
            retries: 5,
          });
          if (res.status !== 200) throw new Error(`send during the storm: ${res.status}`);
        }
      console.error(`Storm: ${target.name} killed, starting it again…`);
      const startedAt = wallNow();
      // BENCH_CPU_PROF=dir: the restarted instance writes a CPU profile there when it stops.
      const profileDir = process.env.BENCH_CPU_PROF;
      await target.start({
        nodeArgs: [...inspect, ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])],
      });
      const readyAt = wallNow();
      const rssFresh = rssMiB(target.pid);
      // Before the CPU figures start (a full collection of a fresh heap: tens of milliseconds,
      // which the clients' times after ready include).
      const memoryFresh = await memoryAfterGc(inspectPort);
      // Where the machine's CPU goes from ready until every socket is back.
      const others = cluster.instances.filter((i) => i !== target);
      const cpuNow = () => ({
        instance: cpuSeconds(target.pid),
        others: others.reduce((sum, i) => sum + cpuSeconds(i.pid), 0),
        generator: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
        postgres: commandCpuSnapshot('postgres'),
        redis: commandCpuSnapshot('redis-server'),
        machine: machineCpuSeconds(),
      });
      const cpuAtReady = cpuNow();
      const deadline = Date.now() + 120_000;
      while (progress[0] + progress[1] < plain.length && Date.now() < deadline) await sleep(50);
      const cpuAtBack = cpuNow();
      await sleep(3000);
      const rssAfter = rssMiB(target.pid);
      const memoryAfter = await memoryAfterGc(inspectPort);
      const results = [];
      for (const g of groups) results.push(await g.collect());
      const clients = results.flatMap((r) => r.clients);
      const generatorLoops = results.map(
        (r, i) =>
          `thread ${i + 1}: p50 ${r.loop.p50.toFixed(0)} ms, p99 ${r.loop.p99.toFixed(0)} ms, max ${r.loop.max.toFixed(0)} ms`,
      );
      const back = clients.filter((c) => c.backAt > 0);
      const lastBack = Math.max(...back.map((c) => c.backAt));
      const sorted = (key) => back.map((c) => c[key]).sort((a, b) => a - b);
      const perClient = sorted('attemptToBackMs');
      const caughtUp = clients.filter((c) => c.lastSeq >= missed).length;
      const afterReady = back.map((c) => c.backAt - readyAt).sort((a, b) => a - b);
      out.push(`## Restart storm: ${plain.length} sockets on one instance, killed and started again\n`);
      out.push(`Planner statistics: ${statistics}.\n`);
      if (process.env.BENCH_STORM_NO_CATCHUP === '1')
        out.push(
          '**Diagnosis run (BENCH_STORM_NO_CATCHUP=1): no catch-up at the join, unlike a browser.**\n',
        );
      if (process.env.BENCH_STORM_BROWSER_READS === '1') {
        const settled = clients.filter((c) => c.settledAt > 0).map((c) => c.settledAt - readyAt);
        out.push(
          `**With the room page's reads after a rejoin (BENCH_STORM_BROWSER_READS=1)**: each join also asks for ` +
            `the conversation list and the Ring's key revision, and once back each client reads its key state ` +
            `(keys/state.php) again unless the answer's revision is the one of the state it read when it opened, ` +
            `as the web page does (${clients.filter((c) => c.keyStateReads > 0).length} read it during the storm); ` +
            `${settled.length} of ${plain.length} had both, ` +
            `${settled.filter((ms) => ms <= 5000).length} within 5 s of ready, all ` +
            `${(Math.max(...settled) / 1000).toFixed(2)} s after it.\n`,
        );
      }
      out.push(
        `${ringCount} Rings of ${STORM_RING_SIZE} members, one socket each, connected straight to ${target.name} ` +
          `(${connectMs} ms to connect and join them all and for each to hold its spare stream token). SIGKILL, ${missed} messages per Ring sent meanwhile ` +
          `through the other instances, then the same instance started again: ready ${((readyAt - startedAt) / 1000).toFixed(1)} s ` +
          `after its start, ${((readyAt - killedAt) / 1000).toFixed(1)} s after the kill. Clients reconnect as the web client ` +
          `does (scripts/lib/ring-driver.mjs connectRingClient: delays of reconnectDelayMs, 0.5–1 s then 1 s up to 5 s at ` +
          `random; the spare stream token taken while connected, else one minted over HTTP; join_ring naming the room ` +
          `and its highest sequence number, whose answer carries what was missed; get.php?since= only past its page or ` +
          `without it): ${back.filter((c) => c.usedSpare).length} of ${back.length} came back with their spare token; ` +
          `${clients.filter((c) => c.answered > 0).length} were given missed messages in a join_ring answer and ` +
          `${clients.filter((c) => c.httpCatchUps > 0).length} still asked get.php; ` +
          `${back.filter((c) => c.joinedAt - readyAt <= 5000).length} had joined their Ring again within 5 s of ready, ` +
          `all ${((Math.max(...back.map((c) => c.joinedAt)) - readyAt) / 1000).toFixed(2)} s after it. ` +
          `Load average before the kill ${loadBeforeStorm}, after ${load()}. Event-loop delay of the load generator's ` +
          `threads during the storm: ${generatorLoops.join('; ')}.\n`,
      );
      out.push(
        table(
          [
            'Sockets back',
            'Caught up',
            'Back ≤ 5 s after ready',
            'All back, s after ready',
            'All back, s after kill',
            'Attempt→back p50 ms',
            'p99 ms',
            'max ms',
          ],
          [
            [
              `${back.length} / ${plain.length}`,
              `${caughtUp} / ${plain.length}`,
              `${back.filter((c) => c.backAt - readyAt <= 5000).length}`,
              ((lastBack - readyAt) / 1000).toFixed(2),
              ((lastBack - killedAt) / 1000).toFixed(2),
              percentile(perClient, 50).toFixed(0),
              percentile(perClient, 99).toFixed(0),
              (perClient[perClient.length - 1] ?? 0).toFixed(0),
            ],
          ],
        ),
      );
      out.push('');
      // Where the time of the attempt that brought each client back went, and how many it took.
      out.push(
        table(
          ['Of the attempt that joined', 'p50 ms', 'p99 ms', 'max ms'],
          [
            ['Back, after ready', afterReady],
            [
              'Joined (`join_ring` answered), after ready',
              back.map((c) => c.joinedAt - readyAt).sort((a, b) => a - b),
            ],
            ['Last try started, after ready', back.map((c) => c.retryAt - readyAt).sort((a, b) => a - b)],
            ['Connection opened (websocket)', sorted('openMs')],
            ['Token (spare, or minted over HTTP)', sorted('mintMs')],
            ['Handshake (token consumed)', sorted('handshakeMs')],
            ['join_ring answered', sorted('joinMs')],
            ['Catch-up past the answer (get.php?since=)', sorted('catchUpMs')],
            ['Tries after the kill (count)', sorted('retries')],
            ['Of which reached the instance (count)', sorted('attempts')],
          ].map(([name, values]) => [
            name,
            percentile(values, 50).toFixed(0),
            percentile(values, 99).toFixed(0),
            (values[values.length - 1] ?? 0).toFixed(0),
          ]),
        ),
      );
      // How fast the restarted process took them back, second by second (its code warms up).
      const perSecond = new Map();
      for (const ms of afterReady) {
        const second = Math.floor(ms / 1000);
        perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
      }
      out.push(
        `\nSockets back per second after ready: ${[...perSecond]
          .sort((a, b) => a[0] - b[0])
          .map(([second, n]) => `${second}–${second + 1} s ${n}`)
          .join(', ')}.`,
      );
      out.push('');
      const used = (key) =>
        typeof cpuAtBack[key] === 'number'
          ? cpuAtBack[key] - cpuAtReady[key]
          : commandCpuUsed(cpuAtReady[key], cpuAtBack[key]);
      const wall = cpuAtBack.machine.total - cpuAtReady.machine.total;
      out.push(
        table(
          ['CPU from ready to all back', 'CPU s', 'ms per socket back'],
          [
            ['Restarted instance', used('instance')],
            ['Other two instances', used('others')],
            ['Load generator (this process, all threads)', used('generator')],
            ['PostgreSQL (all backends)', used('postgres')],
            ['Redis', used('redis')],
            ['Whole machine, busy', cpuAtBack.machine.busy - cpuAtReady.machine.busy],
          ].map(([name, seconds]) => [
            name,
            seconds.toFixed(2),
            ((seconds * 1000) / plain.length).toFixed(2),
          ]),
        ),
      );
      out.push(
        `\nThe machine's cores were busy ${((100 * (cpuAtBack.machine.busy - cpuAtReady.machine.busy)) / wall).toFixed(0)} % of that time.\n`,
      );
      out.push(
        "\nThe instance's memory is read after two forced full collections (through its inspector, on " +
          'loopback); per socket, the growth of its live heap plus Buffers. A freshly started process ' +
          'also grows by warming up while the sockets come back.\n',
      );
      out.push(
        table(
          [
            'Instance memory',
            'RSS MiB',
            'Heap after GC, MiB',
            'External (Buffers), MiB',
            'Heap + external per socket, KiB',
          ],
          memoryRows([
            ['Before the sockets', rssBefore, memoryBefore],
            [`${plain.length} sockets joined`, rssConnected, memoryConnected, memoryBefore, plain.length],
            ['Restarted, before reconnections', rssFresh, memoryFresh],
            [`${back.length} sockets back`, rssAfter, memoryAfter, memoryFresh, back.length],
          ]),
        ),
      );
      out.push('');
    }
    out.push(`Setup and run: ${((Date.now() - setupStarted) / 1000).toFixed(0)} s.`);
    console.log(out.join('\n'));
  } finally {
    agent.destroy();
    await cluster.stop();
  }

  function pgVersion(url) {
    return withPg(
      url,
      async (client) => (await client.query('show server_version')).rows[0].server_version.split(' ')[0],
    );
  }

  function haproxyVersion() {
    const printed = spawnSync(HAPROXY_BIN, ['-v'], { encoding: 'utf8' }).stdout ?? '';
    return /version (\S+)/i.exec(printed)?.[1] ?? '';
  }
}
