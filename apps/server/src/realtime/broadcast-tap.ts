/**
 * One broadcast packet as this instance delivered it: its event name (undefined for a packet that
 * is not an event), how many of this instance's sockets it was written to, and its encoded size.
 */
export interface TappedBroadcast {
  event: string | undefined;
  recipients: number;
  bytes: number;
}

/** socket.io-parser's packet types that carry an event (`EVENT`, `BINARY_EVENT`). */
const EVENT_PACKET_TYPES = new Set([2, 5]);

interface BroadcastPacket {
  type: number;
  data?: unknown;
}

/**
 * The two calls of socket.io-adapter's in-memory `Adapter` (which the Redis adapter extends) that
 * every broadcast makes on the adapter instance, whether emitted here or carried by Redis from
 * another instance (`onmessage` → `super.broadcast`) or replayed (`ResilientRedisAdapter.replay`):
 * `_encode(packet)` once, then at once `apply(opts, write)`, which calls `write` for each recipient
 * socket of this instance. The adapter's other uses of `apply` (joins, leaves, fetchSockets,
 * disconnectSockets) are not preceded by `_encode`. `_encode` is private: the unit test of this file
 * fails if socket.io-adapter stops calling it this way.
 */
interface AdapterInternals {
  _encode(packet: BroadcastPacket, packetOpts: unknown): Array<string | Buffer>;
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
 * Calls `onBroadcast` once per broadcast the adapter writes to this instance's sockets, with the
 * number of them it reached: what per-socket listeners (`onAnyOutgoing`, engine.io's `packetCreate`)
 * would learn one delivery at a time, for one counter increment per recipient instead of a listener
 * call (issue 30). Changes `adapter` in place and returns it.
 */
export function tapBroadcasts<A extends object>(
  adapter: A,
  onBroadcast: (broadcast: TappedBroadcast) => void,
): A {
  const internals = adapter as unknown as AdapterInternals;
  const encode = internals._encode;
  const apply = internals.apply;
  if (typeof encode !== 'function' || typeof apply !== 'function')
    throw new Error('socket.io adapter without _encode/apply: its broadcasts cannot be tapped');
  /** The packet `_encode` just encoded, for the `apply` that follows it in the same broadcast. */
  let encoded: { event: string | undefined; bytes: number } | undefined;
  internals._encode = function (this: AdapterInternals, packet, packetOpts) {
    const packets = encode.call(this, packet, packetOpts);
    encoded = { event: eventNameOf(packet), bytes: encodedSize(packets) };
    return packets;
  };
  internals.apply = function (this: AdapterInternals, opts, write) {
    const broadcast = encoded;
    encoded = undefined;
    if (!broadcast) {
      apply.call(this, opts, write);
      return;
    }
    let recipients = 0;
    try {
      apply.call(this, opts, (socket) => {
        recipients++;
        write(socket);
      });
    } finally {
      onBroadcast({ event: broadcast.event, recipients, bytes: broadcast.bytes });
    }
  };
  return adapter;
}

/** What `io.adapter()` takes: a class or a function called with `new` for each namespace. */
type AdapterFactory = new (nsp: never) => object;

/** An adapter constructor for `io.adapter()` whose adapters are tapped (see tapBroadcasts). */
export function withBroadcastTap<C>(base: C, onBroadcast: (broadcast: TappedBroadcast) => void): C {
  const Base = base as unknown as AdapterFactory;
  // A plain function (not an arrow): socket.io calls it with `new`; the object it returns is the adapter.
  return function (nsp: never) {
    return tapBroadcasts(new Base(nsp), onBroadcast);
  } as unknown as C;
}
