import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket as ServerSocket } from 'socket.io';
import { io as connect, type Socket as ClientSocket } from 'socket.io-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  eventNameOf,
  withBroadcastDelivery,
  writeFrame,
  type DeliveredBroadcast,
  type FrameRecipient,
} from './broadcast-delivery';

/**
 * A real socket.io server whose adapter delivers as withBroadcastDelivery says (in-memory adapter,
 * as without Redis), with one client per entry of `transports`, connected in turn. `onConnection`
 * sees each server-side socket with its client's index; `onEvent` each event a client receives.
 */
async function serverWithClients(options: {
  transports: Array<Array<'websocket' | 'polling'>>;
  onBroadcast: (broadcast: DeliveredBroadcast) => void;
  onConnection: (socket: ServerSocket, index: number) => void;
  onEvent: (index: number, event: string, args: unknown[]) => void;
}): Promise<{ io: Server; clients: ClientSocket[] }> {
  const http = createServer();
  const io = new Server(http);
  io.adapter(withBroadcastDelivery(io.adapter()!, options.onBroadcast));
  io.on('connection', (socket) => {
    options.onConnection(socket, Number((socket.handshake.auth as { index?: number }).index));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  const clients: ClientSocket[] = [];
  for (const [index, transports] of options.transports.entries()) {
    const client = connect(`http://127.0.0.1:${port}`, { auth: { index }, transports, reconnection: false });
    client.onAny((event: string, ...args: unknown[]) => options.onEvent(index, event, args));
    await new Promise<void>((resolve) => client.once('connect', () => resolve()));
    clients.push(client);
  }
  return { io, clients };
}

/** Answers an event's acknowledgement, if it asks for one; true when it did. */
function answerAck(args: unknown[], answer: string): boolean {
  const ack = args.at(-1);
  if (typeof ack !== 'function') return false;
  (ack as (answer: string) => void)(answer);
  return true;
}

describe('eventNameOf', () => {
  it('names event packets (text and binary) only', () => {
    expect(eventNameOf({ type: 2, data: ['new_message', {}] })).toBe('new_message');
    expect(eventNameOf({ type: 5, data: ['file_chunk', { _placeholder: true, num: 0 }] })).toBe('file_chunk');
    // CONNECT, DISCONNECT, ACK: not events.
    expect(eventNameOf({ type: 0, data: { sid: 'x' } })).toBeUndefined();
    expect(eventNameOf({ type: 1 })).toBeUndefined();
    expect(eventNameOf({ type: 3, data: [{ ok: true }] })).toBeUndefined();
    expect(eventNameOf({ type: 2, data: [42] })).toBeUndefined();
  });
});

/** A real socket.io server with three websocket clients, two in room-a and all in room-b. */
describe('withBroadcastDelivery on socket.io’s adapter', () => {
  let io: Server;
  let clients: ClientSocket[] = [];
  const tapped: DeliveredBroadcast[] = [];
  const received: string[] = [];

  beforeAll(async () => {
    ({ io, clients } = await serverWithClients({
      transports: [['websocket'], ['websocket'], ['websocket']],
      onBroadcast: (broadcast) => tapped.push(broadcast),
      onConnection: (socket, index) => void socket.join(index < 2 ? ['room-a', 'room-b'] : ['room-b']),
      onEvent: (_index, event, args) => {
        received.push(event);
        answerAck(args, 'ok');
      },
    }));
    // The in-memory adapter joins at once, before the client hears it is connected.
    expect(io.of('/').adapter.rooms.get('room-b')?.size).toBe(3);
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await io.close();
  });
  beforeEach(() => {
    tapped.length = 0;
    received.length = 0;
  });

  it('reports each broadcast once with its local recipients (a socket in several rooms counted once) and its size', async () => {
    io.to('room-a').emit('hello', 'x'.repeat(100));
    io.to(['room-a', 'room-b']).emit('hello', 'y');
    io.to('room-b').except('room-a').emit('hello', 'z');
    io.emit('everyone');
    io.to('nobody-here').emit('hello', 'lost');
    expect(tapped.map(({ event, recipients }) => [event, recipients])).toEqual([
      ['hello', 2],
      ['hello', 3],
      ['hello', 1],
      ['everyone', 3],
      ['hello', 0],
    ]);
    // The encoded packet, 2["hello","xxx…"]: 100 + 13 characters.
    expect(tapped[0]!.bytes).toBe(113);
    // What the tap reported is what the clients received.
    await expect.poll(() => received.length).toBe(2 + 3 + 1 + 3);
  });

  it('reports binary broadcasts and broadcasts that wait for acknowledgements', async () => {
    io.to('room-b').emit('blob', Buffer.alloc(1000));
    const answers = await io.timeout(2000).to('room-a').emitWithAck('question');
    expect(answers).toEqual(['ok', 'ok']);
    expect(tapped.map(({ event, recipients }) => [event, recipients])).toEqual([
      ['blob', 3],
      ['question', 2],
    ]);
    expect(tapped[0]!.bytes).toBeGreaterThanOrEqual(1000);
  });

  it('does not report what is not a broadcast: room changes, socket look-ups, emits to one socket', async () => {
    io.in('room-b').socketsJoin('room-c');
    await io.in('room-c').fetchSockets();
    io.in('room-c').socketsLeave('room-c');
    const [server] = await io.in('room-a').fetchSockets();
    server!.emit('direct');
    await expect.poll(() => received).toEqual(['direct']);
    expect(tapped).toEqual([]);
  });
});

describe('writeFrame', () => {
  const frame = Buffer.from('frame');
  /** An open websocket connection with nothing queued, as writeFrame reads it, and what it was sent. */
  function recipient() {
    const sent: Buffer[][] = [];
    const sender = {
      _queue: [] as unknown[],
      _state: 0,
      sendFrame: (list: Buffer[]) => void sent.push(list),
    };
    const socket = {
      _anyOutgoingListeners: undefined as unknown[] | undefined,
      conn: {
        readyState: 'open',
        writeBuffer: [] as unknown[],
        transport: {
          name: 'websocket',
          perMessageDeflate: null as unknown,
          socket: { readyState: 1, _sender: sender },
        },
      },
    } satisfies FrameRecipient;
    return { socket, sender, sent };
  }

  it('writes the frame to an open, idle websocket', () => {
    const { socket, sent } = recipient();
    expect(writeFrame(socket, frame)).toBe(true);
    expect(sent).toEqual([[frame]]);
  });

  it.each([
    [
      'an onAnyOutgoing listener waits for the packet',
      (r: ReturnType<typeof recipient>) => {
        r.socket._anyOutgoingListeners = [() => undefined];
      },
    ],
    [
      'the connection is closing',
      (r: ReturnType<typeof recipient>) => {
        r.socket.conn.readyState = 'closing';
      },
    ],
    [
      'engine.io holds a packet for the socket (a write in progress)',
      (r: ReturnType<typeof recipient>) => {
        r.socket.conn.writeBuffer.push({ type: 'message', data: 'earlier' });
      },
    ],
    [
      'the transport is long polling',
      (r: ReturnType<typeof recipient>) => {
        r.socket.conn.transport.name = 'polling';
      },
    ],
    [
      'messages are compressed',
      (r: ReturnType<typeof recipient>) => {
        r.socket.conn.transport.perMessageDeflate = { threshold: 1024 };
      },
    ],
    [
      'the websocket is closing',
      (r: ReturnType<typeof recipient>) => {
        r.socket.conn.transport.socket.readyState = 2;
      },
    ],
    [
      'ws has frames queued',
      (r: ReturnType<typeof recipient>) => {
        r.sender._queue.push([]);
      },
    ],
    [
      'ws is compressing a frame',
      (r: ReturnType<typeof recipient>) => {
        r.sender._state = 1;
      },
    ],
  ])('leaves the packet to engine.io when %s', (_case, change) => {
    const r = recipient();
    change(r);
    expect(writeFrame(r.socket, frame)).toBe(false);
    expect(r.sent).toEqual([]);
  });
});

/**
 * A real socket.io server with two websocket clients and one long-polling client in one room: what
 * each client receives, in order, and the message packets engine.io created for each connection.
 */
describe('broadcast frames written straight to websockets', () => {
  let io: Server;
  let clients: ClientSocket[] = [];
  const received: Array<Array<[string, unknown]>> = [[], [], []];
  const enginePackets = [0, 0, 0];
  const serverSockets: ServerSocket[] = [];

  beforeAll(async () => {
    ({ io, clients } = await serverWithClients({
      transports: [['websocket'], ['websocket'], ['polling']],
      onBroadcast: () => undefined,
      onConnection: (socket, index) => {
        serverSockets[index] = socket;
        socket.conn.on('packetCreate', (packet: { type: string }) => {
          if (packet.type === 'message') enginePackets[index]!++;
        });
        void socket.join('r');
      },
      onEvent: (index, event, args) => {
        if (!answerAck(args, `ok ${index}`)) received[index]!.push([event, args[0]]);
      },
    }));
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await io.close();
  });
  beforeEach(() => {
    for (const list of received) list.length = 0;
    enginePackets.fill(0);
  });

  it('reaches every socket; websockets get the frame without an engine.io packet, long polling through engine.io', async () => {
    for (let n = 1; n <= 3; n++) io.to('r').emit('n', n);
    const expected = [
      ['n', 1],
      ['n', 2],
      ['n', 3],
    ];
    await expect.poll(() => received).toEqual([expected, expected, expected]);
    expect(enginePackets).toEqual([0, 0, 3]);
  });

  it('keeps the order of what engine.io holds for a busy socket', async () => {
    // The first emit leaves client 0's transport busy until its write is done: engine.io holds
    // the emits to it that follow (3, 5), and the broadcast between them (4) goes behind them.
    const socket = serverSockets[0]!;
    socket.emit('n', 1);
    io.to('r').emit('n', 2);
    socket.emit('n', 3);
    io.to('r').emit('n', 4);
    socket.emit('n', 5);
    await expect
      .poll(() => received)
      .toEqual([
        [1, 2, 3, 4, 5].map((n) => ['n', n]),
        [
          ['n', 2],
          ['n', 4],
        ],
        [
          ['n', 2],
          ['n', 4],
        ],
      ]);
    // Client 0: its own emits and broadcast 4 through engine.io, broadcast 2 written straight.
    expect(enginePackets).toEqual([4, 0, 2]);
  });

  it('sends through engine.io what it must handle itself: volatile, binary, awaiting answers', async () => {
    io.volatile.to('r').emit('v', 1);
    io.to('r').emit('b', Buffer.from([1, 2, 3]));
    const answers = await io.timeout(2000).to('r').emitWithAck('q');
    expect(answers.sort()).toEqual(['ok 0', 'ok 1', 'ok 2']);
    await expect
      .poll(() => received.map((list) => list.map(([event]) => event)))
      .toEqual([
        ['v', 'b'],
        ['v', 'b'],
        ['v', 'b'],
      ]);
    // A binary event is two engine.io packets (the header, then the attachment).
    expect(enginePackets).toEqual([4, 4, 4]);
  });
});
