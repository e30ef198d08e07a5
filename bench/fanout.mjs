// Fan-out (issue 11): a Ring of 300 connected members, 20 messages/s for 60 s sent through
// `messages/send.php` with real end-to-end envelopes, against a plain socket.io server
// (bench/fanout-plain.mjs) broadcasting the same events to 300 sockets, in the same run. Reports
// send-to-receive latency (from the POST to each socket's event) and the server's CPU time per
// delivery (utime + stime from /proc/<pid>/stat over the sending window).
// Budget (issue 30): CPU per delivery ≤ 1.25 × the plain server's, p99 ≤ 1.5 × its p99 and ≤ 50 ms,
// RSS ≤ 2 × its RSS; with several Rings, ≤ 20 KiB of heap per socket.
// Usage: node scripts/build.mjs && node bench/fanout.mjs
//   BENCH_MEMBERS (300, per Ring), BENCH_RATE (20 /s, per Ring), BENCH_SECONDS (60), BENCH_DATABASE_URL
//   (PostgreSQL too), BENCH_RINGS (1; e.g. BENCH_RINGS=50 BENCH_MEMBERS=100 BENCH_RATE=1: issue 30's
//   5,000 sockets, where the server's heap after a full collection is read before and after the
//   sockets join, through its inspector, to give the heap per socket), BENCH_SENDERS (20 per Ring),
//   BENCH_CPU_PROF=dir (a CPU profile of the SecureRing server, and of the plain peer in dir/plain),
//   BENCH_SEND=socket|http (socket: `send_message` with an ack on the sender's joined socket, the
//   plain peer's `send` likewise; http: send.php and the peer's POST /send), BENCH_SERVER_MAIN
//   (another server build, e.g. to compare two builds alternately),
//   BENCH_MIX=chat (issue 29: reactions and typing signals besides the messages, the plain peer
//   broadcasting the same events; bench/fanout-mix.mjs, with BENCH_REACTIONS_PER_MESSAGE,
//   BENCH_TYPING_PER_MESSAGE, BENCH_TYPISTS)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { io } from 'socket.io-client';
import {
  MIX,
  REACTIONS_PER_MESSAGE,
  TYPING_PER_MESSAGE,
  TYPISTS,
  loadWebEncoders,
  mixSchedule,
  reactionPlaintext,
  signReading,
  typingEnvelope,
} from './fanout-mix.mjs';

const RINGS = Number(process.env.BENCH_RINGS ?? 1);
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 300);
const RATE = Number(process.env.BENCH_RATE ?? 20);
/** Messages per second over every Ring. */
const TOTAL_RATE = RATE * RINGS;
/** The heap per socket is read (inspector) when several Rings are run, or with BENCH_HEAP=1. */
const READ_HEAP = RINGS > 1 || process.env.BENCH_HEAP === '1';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const SENDERS = Math.min(Number(process.env.BENCH_SENDERS ?? 20), MEMBERS);
const SEND_OVER = process.env.BENCH_SEND === 'http' ? 'http' : 'socket';
// Issue 30's budget (issue 11 had p99 ≤ 2 × plain's and no RSS bound).
const BUDGET = { cpuRatio: 1.25, p99Ratio: 1.5, p99Ms: 50, rssRatio: 2, heapPerSocketKiB: 20 };
const wallNow = () => performance.timeOrigin + performance.now();
/**
 * Messages each sender sends before the measuring window, on both servers (BENCH_WARMUP, 1; 0: none):
 * what a server does once and not per message (V8 compiling the send path, PostgreSQL planning its
 * statements on each connection after the seeding's ANALYZE, a socket's first membership read) is
 * not measured as the cost of a message. Not counted, paced at the same rate.
 */
const WARMUP_PER_SENDER = Number(process.env.BENCH_WARMUP ?? 1);
/** BENCH_TIMELINE=file: each event's send time, fastest and slowest delivery, and marks (CSV). */
const TIMELINE = process.env.BENCH_TIMELINE;

if (!isMainThread) {
  // Receivers: every socket of the Ring in this thread; each event's arrival time by client id.
  // `rooms[i]`: socket i's Ring id (the plain peer: its room name).
  const { url, tokens, rooms, count, plain } = workerData;
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
    // BENCH_MIX: a typing signal counts when its envelope arrives as sent (it is its own key).
    socket.on('reading_signal', (event) => {
      const at = wallNow();
      const list = arrivals.get(event.content);
      if (list) list.push(at);
      else arrivals.set(event.content, [at]);
    });
    socket.on('connect', async () => {
      const ack = plain
        ? await socket.emitWithAck('join', rooms[i])
        : await socket.emitWithAck('join_ring', { ringId: rooms[i] });
      if (!ack.ok) throw new Error(`join refused: ${ack.error}`);
      joined += 1;
      if (joined === count) parentPort.postMessage({ type: 'joined' });
    });
    socket.on('connect_error', (error) => parentPort.postMessage({ type: 'error', error: error.message }));
    sockets.push(socket);
  }
  parentPort.on('message', (message) => {
    if (message.type === 'send') {
      // A send over this member's socket (BENCH_SEND=socket): the ack stands for send.php's answer.
      const socket = sockets[message.index];
      const signal = message.kind === 'typing';
      const event = plain ? (signal ? 'signal' : 'send') : signal ? 'reading_signal' : 'send_message';
      const payload = plain || signal ? message.body : { ...message.body, ringId: rooms[message.index] };
      socket
        .timeout(30_000)
        .emitWithAck(event, payload)
        .then(
          (ack) =>
            parentPort.postMessage({
              type: 'sent',
              id: message.id,
              status: ack.ok ? 200 : (ack.status ?? 500),
              body: JSON.stringify(ack),
            }),
          (error) =>
            parentPort.postMessage({ type: 'sent', id: message.id, status: 0, body: String(error?.message) }),
        );
      return;
    }
    if (message.type !== 'collect') return;
    const latencies = [];
    const timeline = [];
    let deliveries = 0;
    // By kind of event (message, reaction, typing), for BENCH_MIX.
    const byKind = {};
    for (const [key, sentAt] of message.sent) {
      const kind = message.kinds.get(key) ?? 'message';
      byKind[kind] ??= { sent: 0, deliveries: 0, latencies: [] };
      byKind[kind].sent += 1;
      for (const at of arrivals.get(key) ?? []) {
        latencies.push(at - sentAt);
        byKind[kind].latencies.push(at - sentAt);
      }
      deliveries += arrivals.get(key)?.length ?? 0;
      byKind[kind].deliveries += arrivals.get(key)?.length ?? 0;
      // BENCH_TIMELINE: each event's send time and its fastest and slowest delivery (ms).
      if (message.timeline) {
        const times = arrivals.get(key) ?? [];
        timeline.push([key, sentAt, Math.min(...times) - sentAt, Math.max(...times) - sentAt]);
      }
    }
    for (const socket of sockets) socket.close();
    parentPort.postMessage({ type: 'collected', latencies, deliveries, byKind, timeline });
  });
} else {
  const {
    BENCH_ADMIN,
    ROOT,
    analyzeSeeded,
    cpuSeconds,
    machine,
    memoryAfterGc,
    nodeFlagsFrom,
    percentile,
    rssMiB,
    startServer,
    table,
    withDatabase,
    databaseKinds,
  } = await import('./support.mjs');
  const { loadE2ee } = await import('../scripts/lib/workspace-bundle.mjs');
  const { freePort } = await import('../scripts/lib/free-port.mjs');
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
          path: target.pathname + target.search,
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

  /**
   * BENCH_TIMELINE: a CSV of the run, in ms from the first send: `event,at,fastest,slowest,answer`
   * per event (its deliveries and its send's answer, in ms after its send) and `mark,at,label`.
   */
  function writeTimeline(file, timeline, marks, answeredAt) {
    const start = Math.min(...timeline.map(([, sentAt]) => sentAt));
    const lines = timeline.map(([key, sentAt, fastest, slowest]) => {
      const answer = answeredAt.get(key);
      return `event,${(sentAt - start).toFixed(1)},${fastest.toFixed(1)},${slowest.toFixed(1)},${answer === undefined ? '' : (answer - sentAt).toFixed(1)}`;
    });
    for (const [label, at] of marks) lines.push(`mark,${(at - start).toFixed(1)},${label}`);
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    console.error(`timeline: ${file}`);
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
    const pending = new Map();
    let nextId = 0;
    worker.on('message', (m) => {
      if (m.type !== 'sent') return;
      pending.get(m.id)?.({ status: m.status, body: m.body });
      pending.delete(m.id);
    });
    return {
      /** Sends `body` over the socket of member `index` (BENCH_SEND=socket); resolves with its ack. */
      send(index, body, kind = 'message') {
        const id = nextId++;
        return new Promise((resolve) => {
          pending.set(id, resolve);
          worker.postMessage({ type: 'send', id, index, body, kind });
        });
      },
      async collect(sent, kinds = new Map()) {
        worker.postMessage({ type: 'collect', sent: [...sent], kinds, timeline: Boolean(TIMELINE) });
        const result = await new Promise((resolve) =>
          worker.on('message', (m) => m.type === 'collected' && resolve(m)),
        );
        await worker.terminate();
        return result;
      },
    };
  }

  /**
   * The warm-up (WARMUP_PER_SENDER): sends `messages` one after the other at the benchmark's rate,
   * each awaited, then lets their deliveries land. Nothing of it is measured.
   */
  async function warmUp(messages, send) {
    for (const message of messages) {
      const res = await send(message);
      if (res.status !== 200)
        throw new Error(`warm-up send refused: ${res.status} ${res.body.slice(0, 120)}`);
      await new Promise((resolve) => setTimeout(resolve, 1000 / TOTAL_RATE));
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }

  /**
   * Sends `messages` at RATE per second (each through `send(message)`; with BENCH_MIX, each at its
   * `at`, in ms from the start), then waits for the stragglers; returns the send times by client
   * id (a typing signal's: its envelope), the kind of each and the server's CPU seconds over the window.
   */
  async function drive(pid, messages, send, errors) {
    const sent = new Map();
    const kinds = new Map();
    const cpuBefore = cpuSeconds(pid);
    // BENCH_ON_WINDOW: a shell command started as the window opens, with the server's pid in
    // BENCH_PID (a profiler to attach: `perf record -g -p $BENCH_PID -- sleep 20`).
    if (process.env.BENCH_ON_WINDOW)
      spawn('sh', ['-c', process.env.BENCH_ON_WINDOW], {
        env: { ...process.env, BENCH_PID: String(pid) },
        stdio: 'inherit',
      });
    const started = performance.now();
    const inFlight = [];
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i];
      const due = started + (message.at ?? (i * 1000) / TOTAL_RATE);
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const key = message.key ?? message.clientMessageId;
      sent.set(key, wallNow());
      if (message.kind) kinds.set(key, message.kind);
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
    return { sent, kinds, cpu: cpuSeconds(pid) - cpuBefore };
  }

  function summarise(name, result, messages, errors, rss) {
    // Refused or failed sends, grouped by answer (a run with errors measures less than it says).
    const tally = new Map();
    for (const error of errors) tally.set(error, (tally.get(error) ?? 0) + 1);
    for (const [error, count] of tally) console.error(`${name}: ${count} × ${error}`);
    const latencies = [...result.latencies].sort((a, b) => a - b);
    // A typing signal reaches the other members only; every other event, all of them.
    const recipientsOf = (kind) => (kind === 'typing' ? MEMBERS - 1 : MEMBERS);
    const expected = result.byKind
      ? Object.entries(result.byKind).reduce((sum, [kind, k]) => sum + k.sent * recipientsOf(kind), 0)
      : messages * MEMBERS;
    const heap = result.heapPerSocketKiB;
    const kinds = Object.fromEntries(
      Object.entries(result.byKind ?? {}).map(([kind, k]) => {
        const sorted = k.latencies.sort((a, b) => a - b);
        return [
          kind,
          {
            sent: k.sent,
            deliveries: k.deliveries,
            missing: k.sent * recipientsOf(kind) - k.deliveries,
            p50: percentile(sorted, 50),
            p99: percentile(sorted, 99),
          },
        ];
      }),
    );
    return {
      name,
      kinds,
      messages,
      deliveries: result.deliveries,
      missing: expected - result.deliveries,
      errors: errors.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies[latencies.length - 1] ?? 0,
      cpuUsPerDelivery: (result.cpu * 1e6) / Math.max(1, result.deliveries),
      rss,
      heap,
    };
  }

  /** The load generator's view of a server's memory: heap after a full collection (inspector), MiB. */
  async function heapMiB(inspectPort) {
    return inspectPort ? (await memoryAfterGc(inspectPort)).heap : undefined;
  }
  const perSocketKiB = (before, after, sockets) =>
    before === undefined || after === undefined ? undefined : ((after - before) * 1024) / sockets;

  /** Plain socket.io, the same events to the same rooms (`events[i].room`: the index of its Ring). */
  async function runPlain(events) {
    const port = await freePort();
    const inspectPort = READ_HEAP ? await freePort() : undefined;
    const child = spawn(
      process.execPath,
      [
        // BENCH_PLAIN_NODE_FLAGS: Node/V8 flags for the plain peer only, as BENCH_SERVER_NODE_FLAGS.
        ...nodeFlagsFrom('BENCH_PLAIN_NODE_FLAGS'),
        ...(inspectPort ? [`--inspect=127.0.0.1:${inspectPort}`] : []),
        // BENCH_CPU_PROF: the plain peer's profile too, in its own folder, to compare the same code paths.
        ...(process.env.BENCH_CPU_PROF
          ? ['--cpu-prof', `--cpu-prof-dir=${path.join(process.env.BENCH_CPU_PROF, 'plain')}`]
          : []),
        path.join(ROOT, 'bench/fanout-plain.mjs'),
      ],
      { env: { ...process.env, PLAIN_PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise((resolve) => child.stdout.once('data', resolve));
    // BENCH_PLAIN_LOG=file: the peer's output from then on (e.g. --trace-gc in BENCH_PLAIN_NODE_FLAGS).
    if (process.env.BENCH_PLAIN_LOG) child.stdout.pipe(fs.createWriteStream(process.env.BENCH_PLAIN_LOG));
    const url = `http://127.0.0.1:${port}`;
    try {
      const heapBefore = await heapMiB(inspectPort);
      const rooms = Array.from({ length: RINGS * MEMBERS }, (_, i) => `ring-${Math.floor(i / MEMBERS)}`);
      const group = await receivers({ url, count: RINGS * MEMBERS, rooms, plain: true });
      const heapAfter = await heapMiB(inspectPort);
      const errors = [];
      let i = 0;
      let t = 0;
      // The same number of warm-up events as SecureRing's, copies of the first ones under other ids.
      const sendPlain = (room, event) =>
        SEND_OVER === 'socket'
          ? group.send(room * MEMBERS + (i++ % SENDERS), event)
          : post(`${url}/send?room=ring-${room}`, {}, event);
      const warmupEvents = events
        .filter((e) => e.kind !== 'typing')
        .slice(0, WARMUP_PER_SENDER * SENDERS * RINGS)
        .map((e, k) => ({ room: e.room, event: { ...e.event, clientMessageId: `warm-up-${k}` } }));
      await warmUp(warmupEvents, ({ room, event }) => sendPlain(room, event));
      i = 0;
      const { sent, kinds, cpu } = await drive(
        child.pid,
        events,
        ({ room, event, kind }) =>
          // Typing signals go over the socket in both modes (SecureRing has no HTTP call for them).
          kind === 'typing'
            ? group.send(room * MEMBERS + (t++ % Math.min(TYPISTS, MEMBERS)), event, 'typing')
            : sendPlain(room, event),
        errors,
      );
      const rss = rssMiB(child.pid);
      const result = await group.collect(sent, kinds);
      const heapPerSocketKiB = perSocketKiB(heapBefore, heapAfter, RINGS * MEMBERS);
      return summarise('plain socket.io', { ...result, cpu, heapPerSocketKiB }, events.length, errors, rss);
    } finally {
      child.kill('SIGTERM');
    }
  }

  let webEncoders;
  /**
   * BENCH_MIX=chat: the reactions and typing signals to send among `messages` (each given its time,
   * `at`), pre-encrypted like the messages: a reaction (by the next sender) to the message just
   * before it, a typing signal by each typist in turn.
   */
  async function mixEvents(rings, messages) {
    const web = await (webEncoders ??= loadWebEncoders());
    for (const m of messages) m.at = (m.index * 1000) / TOTAL_RATE;
    const { reactions, typing } = mixSchedule(messages.length, TOTAL_RATE);
    let index = messages.length;
    const planned = [
      ...reactions.map(({ after, at }, k) => {
        const target = messages[after];
        const { ring } = target;
        const sender = ring.senders[(ring.senders.indexOf(target.sender) + 1) % ring.senders.length];
        return {
          kind: 'reaction',
          at,
          room: target.room,
          ring,
          sender,
          plain: reactionPlaintext(web, target, k),
        };
      }),
      ...typing.map(({ at }, k) => {
        const room = k % RINGS;
        const ring = rings[room];
        const sender = ring.typists[Math.floor(k / RINGS) % ring.typists.length];
        return { kind: 'typing', at, room, ring, sender };
      }),
    ];
    return mapLimit(planned, 8, async (p) => {
      if (p.kind === 'typing') {
        const content = await typingEnvelope(web, p.sender, p.ring.log);
        return { ...p, index: index++, key: content, content };
      }
      const clientMessageId = crypto.randomUUID();
      return {
        ...p,
        index: index++,
        clientMessageId,
        content: await p.sender.encrypt(p.plain, clientMessageId),
      };
    });
  }

  async function runSecureRing(kind, e2ee) {
    return withDatabase(kind, process.env.BENCH_DATABASE_URL, async ({ dataDir, databaseUrl }) => {
      const profileDir = process.env.BENCH_CPU_PROF;
      const inspectPort = READ_HEAP ? await freePort() : undefined;
      const server = await startServer({
        dataDir,
        databaseUrl,
        main: process.env.BENCH_SERVER_MAIN || undefined,
        execArgv: [
          ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
          ...(inspectPort ? [`--inspect=127.0.0.1:${inspectPort}`] : []),
        ],
      });
      try {
        const rings = [];
        for (let r = 0; r < RINGS; r++) {
          if (RINGS > 1) process.stderr.write(`\rRing ${r + 1}/${RINGS}…`);
          rings.push(
            await ringWithSenders(server.url, e2ee, {
              admin: BENCH_ADMIN,
              members: MEMBERS - 1,
              senders: MIX ? Math.max(SENDERS, Math.min(TYPISTS, MEMBERS)) : SENDERS,
              concurrency: 4,
            }),
          );
          if (MIX) {
            // The typists hold the epoch's key; the first SENDERS of them also send the messages.
            const ring = rings[r];
            ring.typists = ring.senders.slice(0, Math.min(TYPISTS, MEMBERS));
            ring.senders = ring.senders.slice(0, SENDERS);
            ring.log = await signReading(ring.owner);
          }
        }
        if (RINGS > 1) process.stderr.write('\n');
        const everyone = rings.flatMap((ring) => [ring.owner, ...ring.members]);
        const socketOf = new Map(everyone.map((member, i) => [member, i]));
        const tokens = await mapLimit(everyone, 8, (member) => member.mintStreamToken());
        const total = RATE * SECONDS * RINGS;
        const text =
          'Un message de la conversation, de la longueur d’une phrase ordinaire, envoyé à tout le Ring.';
        // Pre-encrypted under epoch 1, Ring after Ring in turn; a Ring needs a new epoch every
        // 1,000 messages (standard level): a send refused for that makes its owner rotate, as a
        // browser would, and the senders encrypt it again (its latency still counts from the first attempt).
        const messages = await mapLimit(
          Array.from({ length: total }, (_, i) => i),
          8,
          async (i) => {
            const room = i % RINGS;
            const ring = rings[room];
            const sender = ring.senders[Math.floor(i / RINGS) % ring.senders.length];
            const clientMessageId = crypto.randomUUID();
            const plain = `${text} n°${i}`;
            return {
              index: i,
              room,
              ring,
              sender,
              clientMessageId,
              plain,
              content: await sender.encrypt(plain, clientMessageId),
            };
          },
        );
        if (MIX) {
          messages.push(...(await mixEvents(rings, messages)));
          messages.sort((a, b) => a.at - b.at);
        }
        // WARMUP_PER_SENDER messages by each sender of each Ring, sent before the window.
        const warmupMessages = await mapLimit(
          rings.flatMap((ring, room) =>
            Array.from({ length: WARMUP_PER_SENDER }, () =>
              ring.senders.map((sender) => ({ room, ring, sender })),
            ).flat(),
          ),
          8,
          async (m, k) => {
            const clientMessageId = crypto.randomUUID();
            const plain = `${text} (avant la mesure, n°${k})`;
            return { ...m, clientMessageId, plain, content: await m.sender.encrypt(plain, clientMessageId) };
          },
        );
        // Each Ring's next epoch is prepared by its owner now, before the window: on a real Ring the
        // rotating member's device wraps the new key for every member, not the server's machine,
        // and here the load generator shares the server's two cores (300 wraps: about 0.3 s of CPU).
        const epochs = new Map();
        for (const ring of rings)
          epochs.set(ring, { current: 1, rotating: undefined, prepared: await ring.owner.prepareRotation() });
        // PostgreSQL: the planner's statistics of the seeded tables, as on a production server.
        if (databaseUrl) console.log(`PostgreSQL: ${await analyzeSeeded(databaseUrl)}`);
        // Sends refused for their epoch and sent again, and the new epochs this made (shown at the end).
        const resends = { rotation_required: 0, epoch_stale: 0, old_view: 0, rotations: 0, ahead: 0 };
        /** Per sender, its pending share load after the last rotation. */
        const keyLoads = new Map();
        /** BENCH_TIMELINE: the rotation's moments, and when each send's answer came. */
        const marks = [];
        const answeredAt = new Map();
        const renewEpoch = (ring, seen) => {
          const state = epochs.get(ring);
          if (state.current > seen) return state.rotating;
          state.rotating ??= (async () => {
            resends.rotations += 1;
            const startedAt = performance.now();
            marks.push(['rotation posted', wallNow()]);
            // The owner's device made the new key and its shares before the window (above); they
            // are posted now. Otherwise (a later rotation, or the Ring moved) it rotates in full.
            const prepared = state.prepared?.epoch === seen + 1 ? state.prepared : undefined;
            state.prepared = undefined;
            state.current = prepared
              ? await prepared.send().catch(() => ring.owner.rotate())
              : await ring.owner.rotate();
            resends.rotationMs = Math.round(performance.now() - startedAt);
            marks.push(['rotation answered', wallNow()]);
            // Each member's page loads its share when told of the new epoch (keys_changed), on its
            // own, as Keyring.sync does: the key state only, the share checked against the owner's
            // key it already holds. A sender waits for its own share only (keyLoads).
            for (const sender of ring.senders.slice(1))
              keyLoads.set(
                sender,
                sender.loadKeys({ knownSenders: true }).then(() => marks.push(['share loaded', wallNow()])),
              );
          })().finally(() => (state.rotating = undefined));
          return state.rotating;
        };
        let group;
        const sendOne = async (m) => {
          if (m.kind === 'typing')
            return group.send(
              socketOf.get(m.sender),
              { ringId: m.ring.ringId, conversationId: 'room:general', content: m.content },
              'typing',
            );
          let content = m.content;
          let epoch = 1;
          // A client encrypts under the newest epoch it holds: a message pre-encrypted under an
          // older one is encrypted again before it is sent (the load generator's work, not the server's).
          await keyLoads.get(m.sender);
          const newest = Math.max(...m.sender.epochKeys.keys());
          if (newest > epoch) {
            epoch = newest;
            content = await m.sender.encrypt(m.plain, m.clientMessageId);
          }
          for (let attempt = 0; ; attempt++) {
            const res =
              SEND_OVER === 'socket'
                ? await group.send(socketOf.get(m.sender), RingMember.sendBody(content))
                : await post(
                    `${server.url}/api/messages/send.php`,
                    { authorization: `Bearer ${m.sender.token}` },
                    RingMember.sendBody(content),
                  );
            // The answer says the epoch nears its limit (rotationSoon): its sender creates the next
            // epoch in the background, as the browser's Keyring.rotateAhead does, and sends on.
            if (res.status === 200 && res.body.includes('"rotationSoon":true')) {
              resends.ahead += 1;
              Promise.resolve(renewEpoch(m.ring, epoch)).catch((error) =>
                console.error(`rotation ahead failed: ${error?.message ?? error}`),
              );
            }
            if (res.status !== 409 || !/rotation_required|epoch_stale/.test(res.body) || attempt >= 8)
              return res;
            const reason = /rotation_required/.test(res.body) ? 'rotation_required' : 'epoch_stale';
            // A socket send is checked against the Ring row its membership check read, up to a
            // second old (socket-events.ts): right after a rotation it may refuse a message of the
            // new epoch (`epoch_stale`, or `rotation_required` from the old epoch's count), naming
            // an older epoch than the one sent. No new epoch is due then: sent again a little
            // later, counted apart (`old_view`).
            const named = Number(/"currentEpoch":(\d+)/.exec(res.body)?.[1]);
            if (named < epoch) {
              resends.old_view += 1;
              await new Promise((resolve) => setTimeout(resolve, 400));
              continue;
            }
            resends[reason] += 1;
            await renewEpoch(m.ring, epoch);
            await keyLoads.get(m.sender);
            epoch = Math.max(...m.sender.epochKeys.keys());
            content = await m.sender.encrypt(m.plain, m.clientMessageId);
          }
        };
        const heapBefore = await heapMiB(inspectPort);
        const rooms = everyone.map((member) => member.ringId);
        group = await receivers({ url: server.url, tokens, rooms, count: everyone.length });
        const heapAfter = await heapMiB(inspectPort);
        await warmUp(warmupMessages, sendOne);
        const errors = [];
        const events = [];
        const { sent, kinds, cpu } = await drive(
          server.pid,
          messages,
          async (m) => {
            const res = await sendOne(m);
            if (TIMELINE) answeredAt.set(m.key ?? m.clientMessageId, wallNow());
            if (res.status === 200 && m.kind === 'typing') {
              // What the server relays (TReadingSignalEvent), its envelope as sent.
              events[m.index] = {
                room: m.room,
                kind: m.kind,
                at: m.at,
                key: m.key,
                event: {
                  ringId: m.ring.ringId,
                  conversationId: 'room:general',
                  fromUserId: m.sender.memberId,
                  content: m.content,
                },
              };
            } else if (res.status === 200) {
              const { message } = JSON.parse(res.body);
              events[m.index] = {
                room: m.room,
                ...(MIX ? { kind: m.kind, at: m.at } : {}),
                event: {
                  messageId: message.id,
                  fromUsername: message.sender.username,
                  fromUserId: message.sender.id,
                  content: message.content,
                  messageType: message.messageType,
                  conversationId: message.conversationId,
                  ringId: m.ring.ringId,
                  timestamp: message.timestamp,
                  seq: message.seq,
                  clientMessageId: message.clientMessageId,
                  epoch: message.epoch,
                  isEphemeral: message.isEphemeral,
                  expiresAt: message.expiresAt,
                },
              };
            }
            return res;
          },
          errors,
        );
        const rss = rssMiB(server.pid);
        console.error(`epoch refusals sent again: ${JSON.stringify(resends)}`);
        const result = await group.collect(sent, kinds);
        if (TIMELINE) writeTimeline(`${TIMELINE}.${kind}`, result.timeline, marks, answeredAt);
        const heapPerSocketKiB = perSocketKiB(heapBefore, heapAfter, everyone.length);
        const ordered = events.filter(Boolean);
        if (MIX) ordered.sort((a, b) => a.at - b.at);
        return {
          summary: summarise(
            `SecureRing (${kind === 'postgres' ? 'PostgreSQL' : 'SQLite'})`,
            { ...result, cpu, heapPerSocketKiB },
            messages.length,
            errors,
            rss,
          ),
          // In the order sent; the plain peer's drive() reads `clientMessageId` (or `key`) at the top level.
          events: ordered.map((e) => ({ ...e, clientMessageId: e.event.clientMessageId })),
        };
      } finally {
        await server.stop();
      }
    });
  }

  const e2ee = await loadE2ee();
  const rows = [];
  /** BENCH_MIX: deliveries and latency by kind of event. */
  const kindRows = [];
  let verdict = true;
  for (const kind of databaseKinds()) {
    const ours = await runSecureRing(kind, e2ee);
    // Shown at once: a long run (BENCH_RINGS) keeps its figures should the plain peer fail.
    console.error(JSON.stringify(ours.summary));
    const plain = await runPlain(ours.events);
    console.error(JSON.stringify(plain));
    const ok =
      ours.summary.cpuUsPerDelivery <= BUDGET.cpuRatio * plain.cpuUsPerDelivery &&
      ours.summary.p99 <= BUDGET.p99Ratio * plain.p99 &&
      ours.summary.p99 <= BUDGET.p99Ms &&
      ours.summary.rss <= BUDGET.rssRatio * plain.rss &&
      (ours.summary.heap === undefined || ours.summary.heap <= BUDGET.heapPerSocketKiB) &&
      ours.summary.missing === 0 &&
      ours.summary.errors === 0;
    verdict &&= ok;
    const ratios =
      `${(ours.summary.cpuUsPerDelivery / plain.cpuUsPerDelivery).toFixed(2)} / ` +
      `${(ours.summary.p99 / plain.p99).toFixed(2)} / ${(ours.summary.rss / plain.rss).toFixed(2)}`;
    for (const [s, note] of [
      [ours.summary, `${ok ? '✓' : '✗'} ${ratios}`],
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
        s.heap === undefined ? '—' : s.heap.toFixed(1),
        note,
      ]);
    for (const s of [ours.summary, plain])
      for (const [k, figures] of Object.entries(s.kinds))
        kindRows.push([
          s.name,
          k,
          String(figures.sent),
          String(figures.deliveries),
          String(figures.missing),
          figures.p50.toFixed(1),
          figures.p99.toFixed(1),
        ]);
  }
  console.log(
    `# Fan-out — ${machine()}, load average ${os
      .loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')}\n`,
  );
  console.log(
    `${RINGS} Ring(s) of ${MEMBERS} connected members, ${RATE} messages/s per Ring for ${SECONDS} s, sent over ${SEND_OVER}` +
      (MIX
        ? ` with the chat mix (${REACTIONS_PER_MESSAGE} reaction and ${TYPING_PER_MESSAGE} typing signal per message, ` +
          `typing by ${Math.min(TYPISTS, MEMBERS)} members per Ring over their sockets; "Messages" counts every event)`
        : '') +
      '; ' +
      `budget: CPU per delivery ≤ ${BUDGET.cpuRatio} × plain, p99 ≤ ${BUDGET.p99Ratio} × plain p99 and ≤ ${BUDGET.p99Ms} ms, ` +
      `RSS ≤ ${BUDGET.rssRatio} × plain${READ_HEAP ? `, heap ≤ ${BUDGET.heapPerSocketKiB} KiB per socket` : ''}.\n`,
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
        'Heap KiB/socket',
        'Budget (× plain: CPU / p99 / RSS)',
      ],
      rows,
    ),
  );
  if (MIX)
    console.log(
      `\n${table(['Server', 'Kind', 'Sent', 'Deliveries', 'Missing', 'p50 ms', 'p99 ms'], kindRows)}`,
    );
  agent.destroy();
  if (!verdict) process.exitCode = 1;
}
