// The plain socket.io server of bench/fanout.mjs: no auth, no database, no checks. POST /send with a
// JSON event (or a socket's `send` event, with an ack) broadcasts it to every socket that emitted
// `join`, as SecureRing does for a Ring room.
// Started by the benchmark with PLAIN_PORT; prints "ready" once listening.
import http from 'node:http';
import { Server } from 'socket.io';

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://plain');
  if (req.method !== 'POST' || url.pathname !== '/send') {
    res.writeHead(404).end();
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const event = JSON.parse(Buffer.concat(chunks).toString());
    io.to(url.searchParams.get('room') ?? 'ring').emit('new_message', event);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
  });
});
const io = new Server(server, { path: '/socket.io', serveClient: false, maxHttpBufferSize: 256 * 1024 });
io.on('connection', (socket) => {
  let room = 'ring';
  // `join` names the socket's room (one per Ring of the benchmark), 'ring' when it names none.
  socket.on('join', (...args) => {
    const ack = args.pop();
    if (typeof args[0] === 'string') room = args[0];
    void socket.join(room);
    if (typeof ack === 'function') ack({ ok: true });
  });
  // The same broadcast sent over a socket with an ack (the benchmark's BENCH_SEND=socket).
  socket.on('send', (event, ack) => {
    io.to(room).emit('new_message', event);
    if (typeof ack === 'function') ack({ ok: true });
  });
  // BENCH_MIX=chat: a typing signal, broadcast to the room's other sockets as SecureRing relays
  // `reading_signal` to the other members.
  socket.on('signal', (event, ack) => {
    socket.to(room).emit('reading_signal', event);
    if (typeof ack === 'function') ack({ ok: true });
  });
});
server.listen(Number(process.env.PLAIN_PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
// Exit on the benchmark's SIGTERM so that `--cpu-prof` (BENCH_CPU_PROF) writes its profile.
process.on('SIGTERM', () => process.exit(0));
