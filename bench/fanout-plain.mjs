// The plain socket.io server of bench/fanout.mjs: no auth, no database, no checks. POST /send with a
// JSON event broadcasts it to every socket that emitted `join`, as SecureRing does for a Ring room.
// Started by the benchmark with PLAIN_PORT; prints "ready" once listening.
import http from 'node:http';
import { Server } from 'socket.io';

const server = http.createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/send') {
    res.writeHead(404).end();
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const event = JSON.parse(Buffer.concat(chunks).toString());
    io.to('ring').emit('new_message', event);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
  });
});
const io = new Server(server, { path: '/socket.io', serveClient: false, maxHttpBufferSize: 256 * 1024 });
io.on('connection', (socket) => {
  socket.on('join', (ack) => {
    void socket.join('ring');
    if (typeof ack === 'function') ack({ ok: true });
  });
});
server.listen(Number(process.env.PLAIN_PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
