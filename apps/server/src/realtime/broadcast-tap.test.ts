import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { io as connect, type Socket as ClientSocket } from 'socket.io-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventNameOf, withBroadcastTap, type TappedBroadcast } from './broadcast-tap';

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

/** A real socket.io server (in-memory adapter, as without Redis) with three clients. */
describe('withBroadcastTap on socket.io’s adapter', () => {
  let http: HttpServer;
  let io: Server;
  const clients: ClientSocket[] = [];
  const tapped: TappedBroadcast[] = [];
  const received: string[] = [];

  beforeAll(async () => {
    http = createServer();
    io = new Server(http);
    io.adapter(withBroadcastTap(io.adapter()!, (broadcast) => tapped.push(broadcast)));
    io.on('connection', (socket) => {
      const index = Number((socket.handshake.auth as { index?: number }).index);
      void socket.join(index < 2 ? ['room-a', 'room-b'] : ['room-b']);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const { port } = http.address() as AddressInfo;
    for (let index = 0; index < 3; index++) {
      const client = connect(`http://127.0.0.1:${port}`, {
        auth: { index },
        transports: ['websocket'],
        reconnection: false,
      });
      client.onAny((event: string, ...args: unknown[]) => {
        received.push(event);
        const ack = args.at(-1);
        if (typeof ack === 'function') (ack as (answer: string) => void)('ok');
      });
      await new Promise<void>((resolve) => client.once('connect', () => resolve()));
      clients.push(client);
    }
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
