/**
 * One broadcast packet as this instance delivered it: its event name (undefined for a packet that
 * is not an event), how many of this instance's sockets it was written to, and its encoded size.
 */
export interface DeliveredBroadcast {
  event: string | undefined;
  recipients: number;
  bytes: number;
}

/** socket.io-parser's packet types that carry an event (`EVENT`, `BINARY_EVENT`). */
const EVENT_PACKET_TYPES = new Set([2, 5]);

interface BroadcastPacket {
  type: number;
  data?: unknown;
  /** Set by `broadcastWithAck` (an emit that waits for each socket's answer). */
  id?: number;
}

/**
 * What socket.io-adapter's `_encode` adds to the packet's options: the websocket frame of the
 * encoded packet, computed once for every recipient (`ws`'s `Sender.frame`: header and payload),
 * when the packet encodes to one string (no binary attachment).
 */
interface BroadcastPacketOptions {
  wsPreEncodedFrame?: Buffer[];
  volatile?: boolean;
}

/**
 * The two calls of socket.io-adapter's in-memory `Adapter` (which the Redis adapter extends) that
 * every broadcast makes on the adapter instance, whether emitted here or carried by Redis from
 * another instance (`onmessage` → `super.broadcast`) or replayed (`ResilientRedisAdapter.replay`):
 * `_encode(packet, packetOpts)` once, then at once `apply(opts, write)`, which calls `write` for each
 * recipient socket of this instance. The adapter's other uses of `apply` (joins, leaves,
 * fetchSockets, disconnectSockets) are not preceded by `_encode`. `_encode` is private: the tests of
 * this file fail if socket.io-adapter stops calling it this way.
 */
interface AdapterInternals {
  _encode(packet: BroadcastPacket, packetOpts: BroadcastPacketOptions): Array<string | Buffer>;
  apply(opts: unknown, write: (socket: unknown) => void): void;
}

/** The event name of a socket.io packet, if it carries an event. */
export function eventNameOf(packet: BroadcastPacket): string | undefined {
  if (!EVENT_PACKET_TYPES.has(packet.type) || !Array.isArray(packet.data)) return undefined;
  const name: unknown = packet.data[0];
  return typeof name === 'string' ? name : undefined;
}

const encodedSize = (packets: ReadonlyArray<string | Buffer>): number => {
  let bytes = 0;
  for (const packet of packets) bytes += packet.length;
  return bytes;
};

/**
 * A socket.io socket as far as writeFrame reads it: its outgoing listeners (`onAnyOutgoing`), its
 * engine.io connection, that connection's transport and, for a websocket, `ws`'s socket and sender.
 */
export interface FrameRecipient {
  _anyOutgoingListeners?: unknown[];
  conn: {
    readyState: string;
    writeBuffer: unknown[];
    transport: {
      name: string;
      perMessageDeflate?: unknown;
      socket?: {
        readyState: number;
        _sender?: { _queue?: unknown[]; _state?: number; sendFrame?(list: Buffer[], cb?: () => void): void };
      };
    };
  };
}

/** `ws`'s WebSocket.OPEN. */
const WS_OPEN = 1;

/**
 * Writes a broadcast's websocket frame, computed once for all its recipients, straight to one
 * recipient's websocket, as engine.io would write it (`ws`'s `Sender.sendFrame`, engine.io's own
 * path for pre-encoded frames) but without engine.io's per-packet bookkeeping: a packet object,
 * four events (`packetCreate`, `flush`, `drain`, on the connection and on the server), a sent
 * callback and its queue. That bookkeeping was most of the JavaScript of a delivery (issue 30).
 *
 * Only when the bytes would go out in the same order through engine.io: the connection is open
 * on a websocket, without per-message compression, engine.io holds no packet for it (its
 * `writeBuffer`, filled while a previous write is in progress, is empty) and `ws` has nothing
 * queued; and no `onAnyOutgoing` listener expects to see the packet. Returns false otherwise, and
 * the caller writes the packet through engine.io (long polling, a connection being upgraded or
 * closed, a busy one).
 */
export function writeFrame(socket: FrameRecipient, frame: Buffer): boolean {
  if (socket._anyOutgoingListeners?.length) return false;
  const conn = socket.conn;
  if (conn.readyState !== 'open' || conn.writeBuffer.length !== 0) return false;
  const transport = conn.transport;
  if (transport.name !== 'websocket' || transport.perMessageDeflate) return false;
  const sender = transport.socket?.readyState === WS_OPEN ? transport.socket._sender : undefined;
  if (!sender?.sendFrame || sender._queue?.length || sender._state) return false;
  sender.sendFrame([frame]);
  return true;
}

/**
 * Delivers the adapter's broadcasts to this instance's sockets and reports each one once:
 * - the frame of a plain broadcast (an event without binary attachment, not `volatile`, no answer
 *   awaited) is joined once into one buffer and written to each websocket recipient by writeFrame;
 *   any other packet, or recipient, goes through socket.io and engine.io as before;
 * - `onBroadcast` is called once per broadcast with the number of local recipients: what
 *   per-socket listeners (`onAnyOutgoing`, engine.io's `packetCreate`) would learn one delivery at
 *   a time, for one counter increment per recipient instead of a listener call (issue 30).
 * Changes `adapter` in place and returns it.
 */
export function deliverBroadcasts<A extends object>(
  adapter: A,
  onBroadcast: (broadcast: DeliveredBroadcast) => void,
): A {
  const internals = adapter as unknown as AdapterInternals;
  const encode = internals._encode;
  const apply = internals.apply;
  if (typeof encode !== 'function' || typeof apply !== 'function')
    throw new Error('socket.io adapter without _encode/apply: its broadcasts cannot be delivered here');
  /** The packet `_encode` just encoded, for the `apply` that follows it in the same broadcast. */
  let encoded: { event: string | undefined; bytes: number; frame: Buffer | undefined } | undefined;
  internals._encode = function (this: AdapterInternals, packet, packetOpts) {
    const packets = encode.call(this, packet, packetOpts);
    const parts = packetOpts.wsPreEncodedFrame;
    const frame =
      parts && packet.id === undefined && !packetOpts.volatile
        ? parts.length === 1
          ? parts[0]
          : Buffer.concat(parts)
        : undefined;
    encoded = { event: eventNameOf(packet), bytes: encodedSize(packets), frame };
    return packets;
  };
  internals.apply = function (this: AdapterInternals, opts, write) {
    const broadcast = encoded;
    encoded = undefined;
    if (!broadcast) {
      apply.call(this, opts, write);
      return;
    }
    const frame = broadcast.frame;
    let recipients = 0;
    try {
      apply.call(this, opts, (socket) => {
        recipients++;
        if (frame === undefined || !writeFrame(socket as FrameRecipient, frame)) write(socket);
      });
    } finally {
      onBroadcast({ event: broadcast.event, recipients, bytes: broadcast.bytes });
    }
  };
  return adapter;
}

/** What `io.adapter()` takes: a class or a function called with `new` for each namespace. */
type AdapterFactory = new (nsp: never) => object;

/** An adapter constructor for `io.adapter()` whose adapters deliver as deliverBroadcasts says. */
export function withBroadcastDelivery<C>(base: C, onBroadcast: (broadcast: DeliveredBroadcast) => void): C {
  const Base = base as unknown as AdapterFactory;
  // A plain function (not an arrow): socket.io calls it with `new`; the object it returns is the adapter.
  return function (nsp: never) {
    return deliverBroadcasts(new Base(nsp), onBroadcast);
  } as unknown as C;
}
