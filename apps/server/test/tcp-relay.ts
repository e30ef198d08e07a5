import net from 'node:net';

/**
 * A TCP relay to a local port that a test can hold shut: the dependency behind it (Redis, PostgreSQL)
 * is then "down" for whoever connects through the relay only. Used by the server tests and the e2e specs.
 */
export interface TcpRelay {
  port: number;
  /** Cuts the open links and refuses new ones (as a stopped database or a network cut). */
  shut(): void;
  /** Accepts links again. */
  open(): void;
  close(): Promise<void>;
}

export async function tcpRelay(targetPort: number): Promise<TcpRelay> {
  let shut = false;
  const links = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (shut) {
      client.destroy();
      return;
    }
    const upstream = net.connect(targetPort, '127.0.0.1');
    links.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      links.delete(client);
      links.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cut = () => {
    for (const link of links) link.destroy();
    links.clear();
  };
  return {
    port: (server.address() as net.AddressInfo).port,
    shut() {
      shut = true;
      cut();
    },
    open() {
      shut = false;
    },
    async close() {
      shut = true;
      cut();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
