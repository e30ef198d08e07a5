import type {
  TJoinCatchUp,
  TJoinRingAck,
  TKeysChanged,
  TPresenceUpdate,
  TPresenceUpdates,
} from '@securering/contract';
import type { TestApp } from './build-test-app';
import { E2eeMember } from './e2ee-member';
import { bearer, buildCustomer, buildRing, buildRingMember, ringToken } from './factories';
import { connectSocket, type TestSocket } from './socket-client';
import type { RingsTable } from '../src/db/schema';

/**
 * A subscribed customer's Ring with its owner and members, each able to act like a browser. The
 * owner has published keys and started the Ring's membership log, and admits each member as soon
 * as it publishes keys (`admit: false` on publish to keep one waiting).
 */
export async function ringWithMembers(
  t: TestApp,
  count: number,
  ringOverrides: Partial<RingsTable> = {},
): Promise<{ customerId: string; ringId: string; owner: E2eeMember; members: E2eeMember[] }> {
  const customer = await buildCustomer(t.ctx);
  const ring = await buildRing(t.ctx, customer.id, ringOverrides);
  const ownerRow = await buildRingMember(t.ctx, ring.id, {
    role: 'owner',
    customer_id: customer.id,
    email: customer.email,
    password_hash: null,
  });
  const owner = new E2eeMember(t.app, ownerRow.id, ring.id, await ringToken(t.ctx, ownerRow.id));
  const published = await owner.publish();
  if (published.statusCode !== 200) throw new Error(`owner publish: ${published.body}`);
  const started = await owner.startLog();
  if (started.statusCode !== 200) throw new Error(`genesis: ${started.body}`);
  const members: E2eeMember[] = [];
  for (let i = 0; i < count; i++) {
    const row = await buildRingMember(t.ctx, ring.id);
    const member = new E2eeMember(t.app, row.id, ring.id, await ringToken(t.ctx, row.id));
    member.sponsor = owner;
    members.push(member);
  }
  return { customerId: customer.id, ringId: ring.id, owner, members };
}

/**
 * A Ring of {@link ringWithMembers} ready to chat: everyone published keys, the owner created
 * epoch 1 and every member holds it.
 */
export async function keyedRing(
  t: TestApp,
  count: number,
  ringOverrides: Partial<RingsTable> = {},
): ReturnType<typeof ringWithMembers> {
  const ring = await ringWithMembers(t, count, ringOverrides);
  for (const member of [ring.owner, ...ring.members]) {
    const published = await member.publish();
    if (published.statusCode !== 200) throw new Error(`publish: ${published.statusCode} ${published.body}`);
  }
  const rotated = await ring.owner.rotate();
  if (rotated.statusCode !== 200) throw new Error(`epoch 1: ${rotated.statusCode} ${rotated.body}`);
  for (const member of ring.members) await member.loadKeys();
  return ring;
}

/** A socket of the member that joined its Ring's room, recording the events it receives. */
export async function joinedSocket(
  t: TestApp,
  baseUrl: string,
  member: E2eeMember,
  catchUp?: TJoinCatchUp[],
  extra: { conversations?: boolean; keyRevision?: boolean } = {},
): Promise<{
  socket: TestSocket;
  events: Array<{ name: string; payload: unknown }>;
  keys: TKeysChanged[];
  /** join_ring's answer (with the messages missed, when `catchUp` names conversations). */
  ack: Extract<TJoinRingAck, { ok: true }>;
}> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/rings/mint-stream-token.php',
    headers: bearer(member.token),
  });
  if (res.statusCode !== 200) throw new Error(`mint-stream-token: ${res.statusCode} ${res.body}`);
  const socket = await connectSocket(baseUrl, res.json().stream_token as string);
  const events: Array<{ name: string; payload: unknown }> = [];
  const keys: TKeysChanged[] = [];
  socket.onAny((name: string, payload: unknown) => {
    events.push({ name, payload });
    if (name === 'keys_changed') keys.push(payload as TKeysChanged);
  });
  const ack = await socket.emitWithAck('join_ring', {
    ringId: member.ringId,
    ...(catchUp ? { catchUp } : {}),
    ...extra,
  });
  if (!ack.ok) throw new Error(`join_ring refused: ${ack.error}`);
  return { socket, events, keys, ack };
}

/** The presence changes among recorded events, whether sent alone (presence_update) or batched. */
export function presenceUpdatesIn(
  events: ReadonlyArray<{ name: string; payload: unknown }>,
): TPresenceUpdate[] {
  return events.flatMap((e) =>
    e.name === 'presence_update'
      ? [e.payload as TPresenceUpdate]
      : e.name === 'presence_updates'
        ? (e.payload as TPresenceUpdates).updates
        : [],
  );
}
