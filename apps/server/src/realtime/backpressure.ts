import type { TypedSocket } from './realtime-server';

/** The engine.io connection under a socket.io socket, as far as the guard reads it. */
interface EngineConnection {
  writeBuffer: Array<{ data?: unknown }>;
  transport: { name: string; socket?: { bufferedAmount?: number; terminate?: () => void } };
  on(event: 'packetCreate', listener: (packet: { data?: unknown }) => void): unknown;
  on(event: 'flush', listener: () => void): unknown;
  close(discard?: boolean): unknown;
}

const sizeOf = (data: unknown): number =>
  typeof data === 'string' ? data.length : Buffer.isBuffer(data) ? data.length : 0;

/**
 * Bytes waiting for one socket: packets queued by engine.io while its transport is busy, plus
 * what the websocket has handed to the network layer but the peer has not taken (ws's
 * `bufferedAmount`). A client that stops reading makes both grow.
 */
export function bufferedBytes(conn: EngineConnection, queued?: number): number {
  const pending = queued ?? conn.writeBuffer.reduce((sum, packet) => sum + sizeOf(packet.data), 0);
  const inTransport = conn.transport.name === 'websocket' ? (conn.transport.socket?.bufferedAmount ?? 0) : 0;
  return pending + inTransport;
}

/**
 * Bounds what the server holds for a slow or stalled client: past `limitBytes` waiting for it,
 * the connection is cut (the websocket is terminated at once, not closed politely behind the
 * data it cannot take). The client sees a transport close, reconnects with a fresh stream token
 * and catches up from the database by sequence number, so it loses nothing. The check is O(1)
 * per packet: a running count of the queue, reset when engine.io flushes it to the transport.
 */
export function guardBackpressure(
  socket: TypedSocket,
  limitBytes: number,
  onOverflow: (bytes: number) => void,
): void {
  const conn = socket.conn as unknown as EngineConnection;
  let queued = 0;
  let cut = false;
  conn.on('flush', () => {
    queued = 0;
  });
  conn.on('packetCreate', (packet) => {
    queued += sizeOf(packet.data);
    if (cut) return;
    const bytes = bufferedBytes(conn, queued);
    if (bytes <= limitBytes) return;
    cut = true;
    onOverflow(bytes);
    const ws = conn.transport.name === 'websocket' ? conn.transport.socket : undefined;
    if (ws?.terminate) ws.terminate();
    else conn.close(true);
  });
}
