// A TCP port free to listen on for the servers the tests, benchmarks and `npm run cluster` start.
import fs from 'node:fs';
import net from 'node:net';

/** The first port of the kernel's ephemeral range (outgoing connections), 32768 if unreadable. */
function ephemeralPortsStart() {
  try {
    const [low] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    return Number(low) > 20_100 ? Number(low) : 32_768;
  } catch {
    return 32_768;
  }
}

function canListen(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A port free to listen on, below the kernel's ephemeral range: a port the kernel hands out (port
 * 0) may be taken by an outgoing connection — the instances' own, to PostgreSQL or Redis — before
 * the process it was picked for binds it (seen once: HAProxy's stats port, "Address already in use").
 */
export async function freePort() {
  const end = ephemeralPortsStart();
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * (end - 20_000));
    if (await canListen(port)) return port;
  }
  throw new Error('no free port below the ephemeral range');
}
