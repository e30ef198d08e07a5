// Catch-up after a long stall (issue 26): a Ring holds BENCH_MESSAGES large messages (BENCH_MESSAGE_KIB
// of text each, end-to-end encrypted); BENCH_CLIENTS pages that saw none of them reconnect at once and
// catch up as the web app does — join_ring naming the room with `since: 0` (its answer carries the
// first page, bounded in bytes), then get.php?since=… page by page while `hasMore`. Reports the
// server's resident memory (sampled every 20 ms) before and at its peak during the catch-up, and
// how long the 50 catch-ups took; every client must get every message exactly once.
// Budget: peak RSS during the catch-up ≤ idle RSS + 100 MiB.
// Usage: node scripts/build.mjs && node bench/catch-up.mjs
//   BENCH_CLIENTS (50), BENCH_MESSAGES (1150), BENCH_MESSAGE_KIB (16), BENCH_DATABASE_URL (PostgreSQL too),
//   BENCH_SERVER_MAIN (another build of the server)
import { io } from 'socket.io-client';
import { BENCH_ADMIN, machine, rssMiB, startServer, table, withDatabase, databaseKinds } from './support.mjs';
import { loadE2ee } from '../scripts/lib/workspace-bundle.mjs';
import { RingMember, api, apiOk, mapLimit, ringWithSenders } from '../scripts/lib/ring-driver.mjs';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 1150);
const MESSAGE_KIB = Number(process.env.BENCH_MESSAGE_KIB ?? 16);
const BUDGET_GROWTH_MIB = 100;

/** One page catching up from nothing: join_ring's `missed`, then get.php pages; resolves the seqs. */
async function catchUp(url, ringId, member) {
  const token = await member.mintStreamToken();
  const socket = io(url, {
    path: '/socket.io',
    transports: ['websocket'],
    reconnection: false,
    auth: { token },
  });
  try {
    await new Promise((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('connect_error', reject);
    });
    const ack = await socket
      .timeout(120_000)
      .emitWithAck('join_ring', { ringId, catchUp: [{ conversationId: 'room:general', since: 0 }] });
    if (!ack.ok) throw new Error(`join_ring refused: ${ack.error}`);
    const room = (ack.missed ?? []).find((m) => m.conversationId === 'room:general');
    const seqs = (room?.messages ?? []).map((m) => m.seq);
    let hasMore = room ? room.hasMore : true;
    let cursor = seqs.length > 0 ? seqs[seqs.length - 1] : 0;
    while (hasMore) {
      const page = await apiOk(
        url,
        'GET',
        `/api/messages/get.php?conversation_id=room%3Ageneral&since=${cursor}&limit=100`,
        { token: member.token, timeoutMs: 120_000 },
      );
      for (const m of page.messages) seqs.push(m.seq);
      if (page.messages.length > 0) cursor = page.messages[page.messages.length - 1].seq;
      hasMore = page.hasMore;
    }
    return seqs;
  } finally {
    socket.close();
  }
}

async function run(kind, e2ee) {
  return withDatabase(kind, process.env.BENCH_DATABASE_URL, async ({ dataDir, databaseUrl }) => {
    const server = await startServer({
      dataDir,
      databaseUrl,
      env: { RATE_LIMIT_PUBLIC_PER_MIN: '0', RATE_LIMIT_KEY_WRITES_PER_MIN: '0' },
      // BENCH_SERVER_MAIN: a copy of the built server to measure (default apps/server/dist/main.js).
      ...(process.env.BENCH_SERVER_MAIN ? { main: process.env.BENCH_SERVER_MAIN } : {}),
    });
    try {
      const ring = await ringWithSenders(server.url, e2ee, {
        admin: BENCH_ADMIN,
        members: CLIENTS,
        // 120 sends per member and minute: enough senders to store the messages in about a minute.
        senders: 12,
      });
      const text = 'x'.repeat(MESSAGE_KIB * 1024);
      const sent = [];
      // An epoch carries at most 1,000 messages (standard level): a new key every 900.
      const PER_EPOCH = 900;
      for (let from = 0; from < MESSAGES; from += PER_EPOCH) {
        if (from > 0) {
          await ring.owner.rotate();
          for (const sender of ring.senders.slice(1)) await sender.loadKeys();
        }
        await sendRange(from, Math.min(MESSAGES, from + PER_EPOCH));
      }
      async function sendRange(start, end) {
        await mapLimit(
          Array.from({ length: end - start }, (_, k) => start + k),
          8,
          async (i) => {
            const sender = ring.senders[i % ring.senders.length];
            const body = RingMember.sendBody(await sender.encrypt(`${i} ${text}`));
            for (;;) {
              const res = await api(server.url, 'POST', '/api/messages/send.php', {
                token: sender.token,
                body,
                timeoutMs: 60_000,
              });
              if (res.status === 200) {
                sent.push(res.json.message.seq);
                break;
              }
              // The per-member send limit (120 a minute): wait and send again.
              if (res.status !== 429) throw new Error(`send.php → ${res.status} ${JSON.stringify(res.json)}`);
              await new Promise((resolve) => setTimeout(resolve, 5000));
            }
          },
        );
      }
      const envelopeKiB = (await ring.owner.encrypt(text)).length / 1024;
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const idle = rssMiB(server.pid);
      let peak = idle;
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssMiB(server.pid));
      }, 20);
      const started = performance.now();
      const results = await Promise.all(
        ring.members.map((member) => catchUp(server.url, ring.ringId, member)),
      );
      const seconds = (performance.now() - started) / 1000;
      clearInterval(sampler);
      peak = Math.max(peak, rssMiB(server.pid));
      const expected = [...sent].sort((a, b) => a - b).join(',');
      const complete = results.filter(
        (seqs) => [...seqs].sort((a, b) => a - b).join(',') === expected,
      ).length;
      return {
        kind: kind === 'postgres' ? 'PostgreSQL' : 'SQLite',
        envelopeKiB,
        idle,
        peak,
        seconds,
        complete,
        delivered: results.reduce((n, seqs) => n + seqs.length, 0),
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
  const r = await run(kind, e2ee);
  const ok = r.complete === CLIENTS && r.peak - r.idle <= BUDGET_GROWTH_MIB;
  verdict &&= ok;
  rows.push([
    r.kind,
    `${CLIENTS} × ${MESSAGES} (${r.envelopeKiB.toFixed(1)} KiB envelopes)`,
    `${r.idle.toFixed(0)} MiB`,
    `${r.peak.toFixed(0)} MiB`,
    `+${(r.peak - r.idle).toFixed(0)} MiB`,
    `${r.seconds.toFixed(1)} s`,
    `${r.complete}/${CLIENTS}`,
    ok ? 'yes' : 'NO',
  ]);
}
console.log(`\nCatch-up of ${MESSAGES} messages by ${CLIENTS} pages at once — ${machine()}\n`);
console.log(
  table(
    ['Database', 'Clients × messages', 'Idle RSS', 'Peak RSS', 'Growth', 'Time', 'Complete', 'Within budget'],
    rows,
  ),
);
console.log(`\nBudget: peak RSS ≤ idle RSS + ${BUDGET_GROWTH_MIB} MiB; every page gets every message once.`);
process.exitCode = verdict ? 0 : 1;
