import type { ClientToServerEvents, ServerToClientEvents } from '@securering/contract';
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { io, type Socket } from 'socket.io-client';

export type TestSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address() as AddressInfo;
  return `http://127.0.0.1:${address.port}`;
}

/** Connects like the web client: path /socket.io, token in auth; resolves on connect, rejects on refusal. */
export function connectSocket(baseUrl: string, token: string | undefined): Promise<TestSocket> {
  return openSocket(baseUrl, token ? { token } : {});
}

/** Connects with the given handshake `auth` and HTTP `headers` (cookies, origin); rejects on refusal. */
export function openSocket(
  baseUrl: string,
  auth: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<TestSocket> {
  return new Promise((resolve, reject) => {
    const socket: TestSocket = io(baseUrl, {
      path: '/socket.io',
      auth,
      transports: ['websocket'],
      extraHeaders: headers,
      reconnection: false,
      timeout: 5000,
    });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (error) => {
      socket.close();
      reject(error);
    });
  });
}
