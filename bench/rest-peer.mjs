// The minimal peer of bench/rest-overhead.mjs: Fastify and better-sqlite3, nothing else (no
// logging, no auth, no headers, no compression), running the same two reads as SecureRing on the
// same SQLite file. Started by the benchmark with PEER_PORT, PEER_SQLITE and PEER_RING_ID.
import Database from 'better-sqlite3';
import Fastify from 'fastify';

const db = new Database(process.env.PEER_SQLITE, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
const plans = db.prepare('select * from plans where is_active = 1 order by sort_order, created_at');
const conversation = db
  .prepare("select id from conversations where ring_id = ? and conversation_key = 'room:general'")
  .pluck();
const page = db.prepare(
  `select messages.*, sender.username as sender_username from messages
   left join ring_members as sender on sender.id = messages.sender_member_id
   where messages.conversation_id = ? and (messages.expires_at is null or messages.expires_at > ?)
   order by messages.seq desc limit ?`,
);

const app = Fastify({ logger: false });
app.get('/api/subscriptions/plans.php', async () => ({ success: true, data: plans.all() }));
app.get('/api/messages/get.php', async (request) => {
  const limit = Math.min(100, Number(request.query.limit ?? 50));
  const id = conversation.get(process.env.PEER_RING_ID);
  const rows = page.all(id, new Date().toISOString(), limit + 1);
  const hasMore = rows.length > limit;
  return { success: true, messages: rows.slice(0, limit).reverse(), hasMore };
});
await app.listen({ port: Number(process.env.PEER_PORT), host: '127.0.0.1' });
process.stdout.write('ready\n');
// Exit cleanly on SIGTERM, so a CPU profile (BENCH_CPU_PROF) is written.
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
