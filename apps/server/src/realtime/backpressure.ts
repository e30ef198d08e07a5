/** The engine.io connection under a socket.io socket, as far as the guard reads it. */
interface EngineConnection {
  writeBuffer: Array<{ data?: unknown }>;
  transport: { name: string; socket?: { bufferedAmount?: number; terminate?: () => void } };
  close(discard?: boolean): unknown;
}

const sizeOf = (data: unknown): number =>
  typeof data === 'string' ? data.length : Buffer.isBuffer(data) ? data.length : 0;

/**
 * Bytes waiting for one socket: packets queued by engine.io while its transport is busy, plus
 * what the websocket has handed to the network layer but the peer has not taken (ws's
 * `bufferedAmount`). A client that stops reading makes both grow; nothing else does (they only
 * grow when something is written to the socket).
 */
export function bufferedBytes(conn: EngineConnection): number {
  let pending = 0;
  for (const packet of conn.writeBuffer) pending += sizeOf(packet.data);
  const inTransport = conn.transport.name === 'websocket' ? (conn.transport.socket?.bufferedAmount ?? 0) : 0;
  return pending + inTransport;
}

/**
 * How often every socket is checked, whatever was written to it (acks, join answers, emits to it
 * alone: what the broadcast count does not see). Once a second (issue 30): a check reads a few
 * objects per socket that are rarely in the processor's cache, about half a microsecond each, and
 * four checks a second of 5,000 sockets were 11 ms of every second of the instance's main thread,
 * about 7 % of the time it spent beyond plain socket.io there.
 */
export const BACKPRESSURE_SWEEP_MS = 1000;

/**
 * Bytes broadcast (to at least one socket here) after which every socket is checked at once, before
 * the next broadcast: a quarter of the limit, so no socket passes the limit by more than that plus
 * one packet through broadcasts, whatever their rate.
 */
export function broadcastSweepBytes(limitBytes: number): number {
  return Math.max(1, Math.floor(limitBytes / 4));
}

/**
 * Bounds what the server holds for a slow or stalled client: past `limitBytes` waiting for it,
 * the connection is cut (the websocket is terminated at once, not closed politely behind the
 * data it cannot take). The client sees a transport close, reconnects with a fresh stream token
 * and catches up from the database by sequence number, so it loses nothing.
 *
 * Nothing runs per packet written (issue 30: a listener per delivery cost a few percent of the
 * fan-out's CPU). Instead every socket of the instance is checked (two numbers read per socket):
 * - when the broadcasts since the last check add up to `broadcastSweepBytes` (a quarter of the
 *   limit), right after the one that reached it: any socket was under the limit at the last check
 *   and has received at most those bytes since, so through broadcasts a socket holds at most
 *   1.25 × the limit plus one packet before it is cut;
 * - every `BACKPRESSURE_SWEEP_MS` (1 s), for what is written to one socket alone (acks, join
 *   answers, direct emits, which the broadcast count does not see): such data is cut at most a
 *   second after it passed the limit.
 * The broadcast-triggered check costs one read per socket per quarter-limit broadcast (4 MiB limit:
 * once per MiB broadcast), nothing for the usual small messages.
 */
export class BackpressureGuard<S extends { conn: unknown }> {
  private readonly sweepBytes: number;
  /** Bytes broadcast to at least one socket of this instance since the last check. */
  private broadcastBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Connections already cut, whose close has not reached the socket list yet. */
  private readonly cut = new WeakSet<object>();

  constructor(
    private readonly sockets: () => Iterable<S>,
    private readonly limitBytes: number,
    private readonly onOverflow: (socket: S, bytes: number) => void,
    private readonly sweepMs = BACKPRESSURE_SWEEP_MS,
  ) {
    this.sweepBytes = broadcastSweepBytes(limitBytes);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(), this.sweepMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A broadcast packet of `bytes` was written to at least one socket of this instance. */
  noteBroadcast(bytes: number): void {
    this.broadcastBytes += bytes;
    if (this.broadcastBytes >= this.sweepBytes) this.sweep();
  }

  /** Checks every socket now and cuts those past the limit; returns how many were cut. */
  sweep(): number {
    this.broadcastBytes = 0;
    let cutNow = 0;
    for (const socket of this.sockets()) {
      const conn = socket.conn as EngineConnection;
      const bytes = bufferedBytes(conn);
      if (bytes <= this.limitBytes || this.cut.has(conn)) continue;
      this.cut.add(conn);
      cutNow++;
      this.onOverflow(socket, bytes);
      const ws = conn.transport.name === 'websocket' ? conn.transport.socket : undefined;
      if (ws?.terminate) ws.terminate();
      else conn.close(true);
    }
    return cutNow;
  }
}
