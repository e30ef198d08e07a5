// Fan-out (issue 11): a Ring of 300 connected members, 20 messages/s for 60 s sent through
// `messages/send.php` with real end-to-end envelopes, against a plain socket.io server
// (bench/fanout-plain.mjs) broadcasting the same events to 300 sockets, in the same run. Reports
// send-to-receive latency (from the POST to each socket's event) and the server's CPU time per
// delivery (utime + stime from /proc/<pid>/stat over the sending window).
// Budget: CPU per delivery ≤ 1.25 × the plain server's, p99 ≤ 2 × its p99, p99 ≤ 50 ms.
// Usage: node scripts/build.mjs && node bench/fanout.mjs
//   BENCH_MEMBERS (300), BENCH_RATE (20 /s), BENCH_SECONDS (60), BENCH_DATABASE_URL (PostgreSQL too),
//   BENCH_CPU_PROF=dir (a CPU profile of the SecureRing server)
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { io } from 'socket.io-client';

const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 300);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const SENDERS = 20;
const BUDGET = { cpuRatio: 1.25, p99Ratio: 2, p99Ms: 50 };
const wallNow = () => performance.timeOrigin + performance.now();

if (!isMainThread) {
  // Receivers: every socket of the Ring in this thread; each event's arrival time by client id.
  const { url, tokens, count, plain } = workerData;
  const arrivals = new Map();
  const sockets = [];
  let joined = 0;
  for (let i = 0; i < count; i++) {
    const socket = io(url, {
      path: '/socket.io',
      transports: ['websocket'],
      reconnection: false,
      auth: plain ? {} : { token: tokens[i] },
    });
    socket.on('new_message', (event) => {
      const at = wallNow();
      const list = arrivals.get(event.clientMessageId);
      if (list) list.push(at);
      else arrivals.set(event.clientMessageId, [at]);
    });
    socket.on('connect', async () => {
      const ack = plain
        ? await socket.emitWithAck('join')
        : await socket.emitWithAck('join_ring', { ringId: workerData.ringId });
      if (!ack.ok) throw new Error(`join refused: ${ack.error}`);
      joined += 1;
      if (joined === count) parentPort.postMessage({ type: 'joined' });
    });
    socket.on('connect_error', (error) => parentPort.postMessage({ type: 'error', error: error.message }));
    sockets.push(socket);
  }
  parentPort.on('message', (message) => {
    if (message.type !== 'collect') return;
    const latencies = [];
    let deliveries = 0;
    for (const [clientMessageId, sentAt] of message.sent) {
      for (const at of arrivals.get(clientMessageId) ?? []) latencies.push(at - sentAt);
      deliveries += arrivals.get(clientMessageId)?.length ?? 0;
    }
    for (const socket of sockets) socket.close();
    parentPort.postMessage({ type: 'collected', latencies, deliveries });
  });
} else {
  const {
    BENCH_ADMIN,
    ROOT,
    cpuSeconds,
    machine,
    percentile,
    rssMiB,
    startServer,
    table,
    withDatabase,
    databaseKinds,
  } = await import('./support.mjs');
  const { loadE2ee } = await import('../scripts/lib/workspace-bundle.mjs');
  const { RingMember, mapLimit, ringWithSenders } = await import('../scripts/lib/ring-driver.mjs');
  const http = await import('node:http');

  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
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
          headers: { 'content-type': 'application/json', 'content-length': data.length, ...headers },
        },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
        },
      );
      req.on('error', reject);
      req.end(data);
    });
  }

  /** Connects the receivers in a worker thread; resolves its handle once every socket joined. */
  async function receivers(options) {
    const worker = new Worker(fileURLToPath(import.meta.url), { workerData: options });
    await new Promise((resolve, reject) => {
      worker.on('message', (m) => {
        if (m.type === 'joined') resolve();
        if (m.type === 'error') reject(new Error(m.error));
      });
      worker.once('error', reject);
    });
    return {
      async collect(sent) {
        worker.postMessage({ type: 'collect', sent: [...sent] });
        const result = await new Promise((resolve) =>
          worker.on('message', (m) => m.type === 'collected' && resolve(m)),
        );
        await worker.terminate();
        return result;
      },
    };
  }

  /**
   * Sends `messages` at RATE per second (each through `send(message)`), then waits for the stragglers;
   * returns the send times by client id and the server's CPU seconds over the window.
   */
  async function drive(pid, messages, send, errors) {
    const sent = new Map();
    const cpuBefore = cpuSeconds(pid);
    const started = performance.now();
    const inFlight = [];
    for (let i = 0; i < messages.length; i++) {
      const due = started + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const message = messages[i];
      sent.set(message.clientMessageId, wallNow());
      inFlight.push(
        send(message).then(
          (res) => {
            if (res.status !== 200) errors.push(`${res.status} ${res.body.slice(0, 120)}`);
          },
          (error) => errors.push(error.message),
        ),
      );
    }
    await Promise.all(inFlight);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    return { sent, cpu: cpuSeconds(pid) - cpuBefore };
  }

  function summarise(name, result, messages, errors, rss) {
    const latencies = [...result.latencies].sort((a, b) => a - b);
    const expected = messages * MEMBERS;
    return {
      name,
      messages,
      deliveries: result.deliveries,
      missing: expected - result.deliveries,
      errors: errors.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies[latencies.length - 1] ?? 0,
      cpuUsPerDelivery: (result.cpu * 1e6) / Math.max(1, result.deliveries),
      rss,
    };
  }

  async function runPlain(events) {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const child = spawn(process.execPath, [path.join(ROOT, 'bench/fanout-plain.mjs')], {
      env: { ...process.env, PLAIN_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise((resolve) => child.stdout.once('data', resolve));
    const url = `http://127.0.0.1:${port}`;
    try {
      const group = await receivers({ url, count: MEMBERS, plain: true });
      const errors = [];
      const { sent, cpu } = await drive(child.pid, events, (event) => post(`${url}/send`, {}, event), errors);
      const rss = rssMiB(child.pid);
      const result = await group.collect(sent);
      return summarise('plain socket.io', { ...result, cpu }, events.length, errors, rss);
    } finally {
      child.kill('SIGTERM');
    }
  }

  async function runSecureRing(kind, e2ee) {
    return withDatabase(kind, process.env.BENCH_DATABASE_URL, async ({ dataDir, databaseUrl }) => {
      const profileDir = process.env.BENCH_CPU_PROF;
      const server = await startServer({
        dataDir,
        databaseUrl,
        execArgv: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
      });
      try {
        const ring = await ringWithSenders(server.url, e2ee, {
          admin: BENCH_ADMIN,
          members: MEMBERS - 1,
          senders: SENDERS,
          concurrency: 4,
        });
        const everyone = [ring.owner, ...ring.members];
        const tokens = await mapLimit(everyone, 8, (member) => member.mintStreamToken());
        const total = RATE * SECONDS;
        const text =
          'Un message de la conversation, de la longueur d’une phrase ordinaire, envoyé à tout le Ring.';
        // Pre-encrypted under epoch 1; the Ring needs a new epoch every 1,000 messages (standard
        // level): a send refused for that makes the owner rotate, as a browser would, and the
        // senders encrypt it again (its latency still counts from the first attempt).
        const messages = await mapLimit(
          Array.from({ length: total }, (_, i) => i),
          8,
          async (i) => {
            const sender = ring.senders[i % ring.senders.length];
            const clientMessageId = crypto.randomUUID();
            const plain = `${text} n°${i}`;
            return { sender, clientMessageId, plain, content: await sender.encrypt(plain, clientMessageId) };
          },
        );
        let currentEpoch = 1;
        let rotating;
        const renewEpoch = (seen) => {
          if (currentEpoch > seen) return rotating;
          rotating ??= (async () => {
            currentEpoch = await ring.owner.rotate();
            await mapLimit(ring.senders.slice(1), 10, (sender) => sender.loadKeys());
          })().finally(() => (rotating = undefined));
          return rotating;
        };
        const sendOne = async (m) => {
          let content = m.content;
          let epoch = 1;
          for (let attempt = 0; ; attempt++) {
            const res = await post(
              `${server.url}/api/messages/send.php`,
              { authorization: `Bearer ${m.sender.token}` },
              RingMember.sendBody(content),
            );
            if (res.status !== 409 || !/rotation_required|epoch_stale/.test(res.body) || attempt >= 5)
              return res;
            await renewEpoch(epoch);
            epoch = Math.max(...m.sender.epochKeys.keys());
            content = await m.sender.encrypt(m.plain, m.clientMessageId);
          }
        };
        const group = await receivers({ url: server.url, tokens, count: MEMBERS, ringId: ring.ringId });
        const errors = [];
        const events = [];
        const { sent, cpu } = await drive(
          server.pid,
          messages,
          async (m) => {
            const res = await sendOne(m);
            if (res.status === 200) {
              const message = JSON.parse(res.body).message;
              events.push({
                messageId: message.id,
                fromUsername: message.sender.username,
                fromUserId: message.sender.id,
                content: message.content,
                messageType: message.messageType,
                conversationId: message.conversationId,
                ringId: ring.ringId,
                timestamp: message.timestamp,
                seq: message.seq,
                clientMessageId: message.clientMessageId,
                epoch: message.epoch,
                isEphemeral: message.isEphemeral,
                expiresAt: message.expiresAt,
              });
            }
            return res;
          },
          errors,
        );
        const rss = rssMiB(server.pid);
        const result = await group.collect(sent);
        return {
          summary: summarise(
            `SecureRing (${kind === 'postgres' ? 'PostgreSQL' : 'SQLite'})`,
            { ...result, cpu },
            total,
            errors,
            rss,
          ),
          events: events.sort((a, b) => a.seq - b.seq),
        };
      } finally {
        await server.stop();
      }
    });
  }

  const e2ee = await loadE2ee();
  const rows = [];
  let verdict = true;
  for (const kind of databaseKinds()) {
    const ours = await runSecureRing(kind, e2ee);
    const plain = await runPlain(ours.events);
    const ok =
      ours.summary.cpuUsPerDelivery <= BUDGET.cpuRatio * plain.cpuUsPerDelivery &&
      ours.summary.p99 <= BUDGET.p99Ratio * plain.p99 &&
      ours.summary.p99 <= BUDGET.p99Ms &&
      ours.summary.missing === 0 &&
      ours.summary.errors === 0;
    verdict &&= ok;
    for (const [s, note] of [
      [ours.summary, ok ? '✓' : '✗'],
      [plain, ''],
    ])
      rows.push([
        s.name,
        String(s.messages),
        String(s.deliveries),
        String(s.missing),
        String(s.errors),
        s.p50.toFixed(1),
        s.p99.toFixed(1),
        s.max.toFixed(1),
        s.cpuUsPerDelivery.toFixed(1),
        s.rss.toFixed(0),
        note,
      ]);
  }
  console.log(
    `# Fan-out — ${machine()}, load average ${os
      .loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')}\n`,
  );
  console.log(
    `${MEMBERS} members connected, ${RATE} messages/s for ${SECONDS} s; budget: CPU per delivery ≤ ${BUDGET.cpuRatio} × plain, ` +
      `p99 ≤ ${BUDGET.p99Ratio} × plain p99 and ≤ ${BUDGET.p99Ms} ms.\n`,
  );
  console.log(
    table(
      [
        'Server',
        'Messages',
        'Deliveries',
        'Missing',
        'Errors',
        'p50 ms',
        'p99 ms',
        'max ms',
        'CPU µs/delivery',
        'RSS MiB',
        'Budget',
      ],
      rows,
    ),
  );
  agent.destroy();
  if (!verdict) process.exitCode = 1;
}
