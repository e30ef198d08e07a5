import { createHash, createHmac, randomBytes } from 'node:crypto';
import dgram from 'node:dgram';

/**
 * A minimal STUN/TURN client over UDP for tests (RFC 5389 messages, RFC 5766 Allocate with the
 * long-term credential mechanism): enough to ask a TURN server for a relay with a given username
 * and password and see whether it accepts them. Not a general implementation.
 */

const MAGIC_COOKIE = 0x2112a442;
const TYPE = {
  bindingRequest: 0x0001,
  bindingSuccess: 0x0101,
  allocateRequest: 0x0003,
  allocateSuccess: 0x0103,
  allocateError: 0x0113,
} as const;
const ATTR = {
  username: 0x0006,
  messageIntegrity: 0x0008,
  errorCode: 0x0009,
  realm: 0x0014,
  nonce: 0x0015,
  xorRelayedAddress: 0x0016,
  requestedTransport: 0x0019,
} as const;

interface StunAttribute {
  type: number;
  value: Buffer;
}

interface StunMessage {
  type: number;
  transactionId: Buffer;
  attributes: StunAttribute[];
  /** The raw bytes, for checking MESSAGE-INTEGRITY. */
  raw: Buffer;
}

const padded = (length: number) => Math.ceil(length / 4) * 4;

function encodeAttributes(attributes: StunAttribute[]): Buffer {
  return Buffer.concat(
    attributes.map(({ type, value }) => {
      const out = Buffer.alloc(4 + padded(value.length));
      out.writeUInt16BE(type, 0);
      out.writeUInt16BE(value.length, 2);
      value.copy(out, 4);
      return out;
    }),
  );
}

function header(type: number, bodyLength: number, transactionId: Buffer): Buffer {
  const out = Buffer.alloc(20);
  out.writeUInt16BE(type, 0);
  out.writeUInt16BE(bodyLength, 2);
  out.writeUInt32BE(MAGIC_COOKIE, 4);
  transactionId.copy(out, 8);
  return out;
}

/** Long-term credential key: MD5(username ":" realm ":" password) (RFC 5389 §15.4). */
function longTermKey(username: string, realm: string, password: string): Buffer {
  return createHash('md5').update(`${username}:${realm}:${password}`).digest();
}

/**
 * Encodes a message; with a key, appends MESSAGE-INTEGRITY: HMAC-SHA1 over the message up to the
 * attribute, with the header length already counting it.
 */
function encode(type: number, transactionId: Buffer, attributes: StunAttribute[], key?: Buffer): Buffer {
  const body = encodeAttributes(attributes);
  if (!key) return Buffer.concat([header(type, body.length, transactionId), body]);
  const withoutMi = Buffer.concat([header(type, body.length + 24, transactionId), body]);
  const mac = createHmac('sha1', key).update(withoutMi).digest();
  return Buffer.concat([withoutMi, encodeAttributes([{ type: ATTR.messageIntegrity, value: mac }])]);
}

function decode(raw: Buffer): StunMessage | undefined {
  if (raw.length < 20 || raw.readUInt32BE(4) !== MAGIC_COOKIE) return undefined;
  const length = raw.readUInt16BE(2);
  if (raw.length < 20 + length) return undefined;
  const attributes: StunAttribute[] = [];
  let at = 20;
  while (at + 4 <= 20 + length) {
    const type = raw.readUInt16BE(at);
    const size = raw.readUInt16BE(at + 2);
    attributes.push({ type, value: raw.subarray(at + 4, at + 4 + size) });
    at += 4 + padded(size);
  }
  return { type: raw.readUInt16BE(0), transactionId: raw.subarray(8, 20), attributes, raw };
}

const attr = (message: StunMessage, type: number) => message.attributes.find((a) => a.type === type)?.value;

function errorCodeOf(message: StunMessage): { code: number; reason: string } | undefined {
  const value = attr(message, ATTR.errorCode);
  if (!value || value.length < 4) return undefined;
  return { code: (value[2]! & 0x7) * 100 + value[3]!, reason: value.subarray(4).toString('utf8') };
}

/** Whether a response's MESSAGE-INTEGRITY was made with this key. */
function integrityMatches(message: StunMessage, key: Buffer): boolean {
  let at = 20;
  while (at + 4 <= message.raw.length) {
    const type = message.raw.readUInt16BE(at);
    const size = message.raw.readUInt16BE(at + 2);
    if (type === ATTR.messageIntegrity) {
      const covered = Buffer.from(message.raw.subarray(0, at));
      covered.writeUInt16BE(at - 20 + 24, 2);
      const expected = createHmac('sha1', key).update(covered).digest();
      return expected.equals(message.raw.subarray(at + 4, at + 4 + 20));
    }
    at += 4 + padded(size);
  }
  return false;
}

/**
 * Sends one request on the socket and waits for the response with the same transaction id
 * (retransmitted twice). TURN ties a nonce to the client's address: one socket per client.
 */
function exchange(
  socket: dgram.Socket,
  host: string,
  port: number,
  request: Buffer,
  timeoutMs = 1500,
): Promise<StunMessage> {
  const transactionId = request.subarray(8, 20);
  return new Promise<StunMessage>((resolve, reject) => {
    let attempts = 0;
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(timer);
      socket.off('message', onMessage);
      socket.off('error', onError);
    };
    const onMessage = (raw: Buffer) => {
      const message = decode(raw);
      if (!message || !message.transactionId.equals(transactionId)) return;
      done();
      resolve(message);
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    const send = () => {
      attempts += 1;
      if (attempts > 3) {
        done();
        reject(new Error(`no STUN answer from ${host}:${port}`));
        return;
      }
      socket.send(request, port, host);
      timer = setTimeout(send, timeoutMs);
    };
    socket.on('message', onMessage);
    socket.on('error', onError);
    send();
  });
}

async function withSocket<T>(run: (socket: dgram.Socket) => Promise<T>): Promise<T> {
  const socket = dgram.createSocket('udp4');
  try {
    return await run(socket);
  } finally {
    socket.close();
  }
}

/** A STUN Binding request: true when the server answers (used to wait until it is ready). */
export async function stunBinding(host: string, port: number, timeoutMs = 300): Promise<boolean> {
  try {
    const request = encode(TYPE.bindingRequest, randomBytes(12), []);
    const response = await withSocket((socket) => exchange(socket, host, port, request, timeoutMs));
    return response.type === TYPE.bindingSuccess;
  } catch {
    return false;
  }
}

export type TurnAllocateResult =
  | { ok: true; relayedAddress: string; relayedPort: number; integrityVerified: boolean }
  | { ok: false; code: number; reason: string };

/**
 * A TURN Allocate (UDP relay) with the long-term credential mechanism: a first unauthenticated
 * request gets the realm and nonce (401), the second carries USERNAME, REALM, NONCE and
 * MESSAGE-INTEGRITY keyed with the password. Ok with the relayed address when the server accepts.
 */
export async function turnAllocate(options: {
  host: string;
  port: number;
  username: string;
  password: string;
}): Promise<TurnAllocateResult> {
  return withSocket((socket) => allocate(socket, options));
}

async function allocate(
  socket: dgram.Socket,
  options: { host: string; port: number; username: string; password: string },
): Promise<TurnAllocateResult> {
  const transport = { type: ATTR.requestedTransport, value: Buffer.from([17, 0, 0, 0]) };
  const challenge = await exchange(
    socket,
    options.host,
    options.port,
    encode(TYPE.allocateRequest, randomBytes(12), [transport]),
  );
  const first = errorCodeOf(challenge);
  const realm = attr(challenge, ATTR.realm);
  const nonce = attr(challenge, ATTR.nonce);
  if (challenge.type !== TYPE.allocateError || first?.code !== 401 || !realm || !nonce)
    throw new Error(`unexpected first Allocate answer 0x${challenge.type.toString(16)} ${first?.code ?? ''}`);

  const key = longTermKey(options.username, realm.toString('utf8'), options.password);
  const response = await exchange(
    socket,
    options.host,
    options.port,
    encode(
      TYPE.allocateRequest,
      randomBytes(12),
      [
        transport,
        { type: ATTR.username, value: Buffer.from(options.username, 'utf8') },
        { type: ATTR.realm, value: realm },
        { type: ATTR.nonce, value: nonce },
      ],
      key,
    ),
  );
  if (response.type === TYPE.allocateSuccess) {
    const relayed = attr(response, ATTR.xorRelayedAddress);
    if (!relayed || relayed.length < 8) throw new Error('Allocate success without XOR-RELAYED-ADDRESS');
    const relayedPort = relayed.readUInt16BE(2) ^ (MAGIC_COOKIE >>> 16);
    const address = (relayed.readUInt32BE(4) ^ MAGIC_COOKIE) >>> 0;
    return {
      ok: true,
      relayedAddress: [address >>> 24, (address >>> 16) & 0xff, (address >>> 8) & 0xff, address & 0xff].join(
        '.',
      ),
      relayedPort,
      integrityVerified: integrityMatches(response, key),
    };
  }
  const error = errorCodeOf(response);
  return { ok: false, code: error?.code ?? 0, reason: error?.reason ?? '' };
}
