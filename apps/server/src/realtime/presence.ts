import type { TPresenceUpdate } from '@securering/contract';
import type { AppContext } from '../app-context';
import { RingRepository } from '../modules/rings/ring.repository';
import { LastSeenWriter } from './last-seen-writer';
import { PresenceBatcher, type PresenceBatch } from './presence-batcher';
import { memberRoom, ringRoom } from './realtime-hub';
import type { SocketFeature, TypedServer, TypedSocket } from './realtime-server';

/** Who is in a connected call (the calls feature); presence shows them `in_call`. */
export interface InCallSource {
  inCallMemberIds(ringId: string): Promise<Set<string>>;
}

/** Whether a member still has a joined socket on this instance (local rooms only, no Redis). */
export function holdsMemberLocally(io: TypedServer, memberId: string): boolean {
  const ids = io.of('/').adapter.rooms.get(memberRoom(memberId));
  if (!ids) return false;
  for (const id of ids) if (io.of('/').sockets.get(id)?.data.joined) return true;
  return false;
}

/**
 * Announces members online and offline to their Ring, in batches (PresenceBatcher: a Ring's
 * changes of the last ~100 ms in one event, `presence_update` for one change and
 * `presence_updates` for several), and records last-seen times in batches (LastSeenWriter). A
 * joining socket is left out of the batch that announces it and gets the whole state instead
 * (`presence_state`: who is online and who is in a call), read once for all the sockets that
 * joined the Ring during that batch; the members it announces are recorded in the presence
 * registry (one Redis command per batch) before anyone hears of them.
 */
export class PresenceAnnouncer {
  private readonly batcher: PresenceBatcher<TypedSocket>;
  private readonly lastSeen: LastSeenWriter;
  private closed = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly calls?: InCallSource,
  ) {
    const onError = (error: unknown) => ctx.logger.warn({ err: error }, 'presence announcement failed');
    this.batcher = new PresenceBatcher((batch) => this.send(batch), onError);
    this.lastSeen = new LastSeenWriter(new RingRepository(ctx.db), onError);
  }

  /** A socket joined its Ring's room: the member is online (or in_call) for the others. */
  joined(socket: TypedSocket): void {
    if (this.closed) return;
    const { ringId, memberId } = socket.data;
    this.lastSeen.touch(memberId, this.ctx.clock.now().toISOString());
    this.batcher.announce({ ringId, userId: memberId, status: 'online', lastSeen: null }, socket);
  }

  /** The member's last socket is gone: offline, seen now. */
  offline(ringId: string, memberId: string): void {
    if (this.closed) return;
    const lastSeen = this.ctx.clock.now().toISOString();
    this.lastSeen.touch(memberId, lastSeen);
    this.batcher.announce({ ringId, userId: memberId, status: 'offline', lastSeen });
  }

  private async send({ ringId, updates, joiners }: PresenceBatch<TypedSocket>): Promise<void> {
    const io = this.ctx.realtime.server;
    if (!io) return;
    const stillHere = joiners.filter((socket) => socket.connected);
    // Recorded before they are announced: once the others know, a death of this instance must be
    // noticed for them (presence registry, Redis only).
    // (Skipped while Redis is down: the registry's first beat after its return lists them again.)
    if (this.ctx.realtime.isShared)
      await this.ctx.realtime.presenceRegistry
        ?.holdAll(stillHere.map((socket) => ({ memberId: socket.data.memberId, ringId })))
        .catch((error: unknown) => this.ctx.logger.warn({ err: error }, 'presence registry hold failed'));
    const arriving = updates.some((u) => u.status !== 'offline') || joiners.length > 0;
    const [online, inCall] = arriving
      ? await Promise.all([
          this.ctx.realtime.onlineMemberIds(ringId),
          this.calls ? this.calls.inCallMemberIds(ringId) : Promise.resolve(new Set<string>()),
        ])
      : [new Set<string>(), new Set<string>()];
    // A member whose joined socket went meanwhile is not announced online (its departure, if it
    // was the last, is announced by itself).
    const sent: TPresenceUpdate[] = updates
      .filter((u) => u.status === 'offline' || online.has(u.userId))
      .map((u) => (u.status === 'online' && inCall.has(u.userId) ? { ...u, status: 'in_call' } : u));
    const others = io.to(ringRoom(ringId)).except(stillHere.map((socket) => socket.id));
    if (sent.length === 1) others.emit('presence_update', sent[0]!);
    else if (sent.length > 1) others.emit('presence_updates', { ringId, updates: sent });
    const state = { ringId, online: [...online], inCall: [...inCall].filter((id) => online.has(id)) };
    // Encoded once for all the joiners (all on this instance: no need to ask the others).
    if (stillHere.length > 0) io.local.to(stillHere.map((socket) => socket.id)).emit('presence_state', state);
  }

  /** Stops announcing (the sockets are closing) and writes the last-seen times still waiting. */
  async close(): Promise<void> {
    this.closed = true;
    await this.batcher.close();
    await this.lastSeen.flush();
  }
}

/**
 * Presence: a member is online while one of its sockets is in the Ring's room, `in_call` while it
 * is also in a connected call. Joining announces it to the Ring and sends the joiner who is online
 * and who is in a call; the last socket leaving records the last-seen time and announces the
 * member offline (both through the PresenceAnnouncer, in batches). The calls feature announces
 * `in_call` and the return to `online`.
 *
 * Across instances (Redis), each instance also records the members it holds in the presence
 * registry, so that the members of an instance that dies are announced offline by the others
 * (sweepDeadInstances). A draining instance announces nobody offline: its clients are moving to
 * another instance, and the sweep after its registry entry expires catches those who do not.
 */
export function presenceFeature(ctx: AppContext, calls?: InCallSource): SocketFeature {
  const announcer = new PresenceAnnouncer(ctx, calls);
  ctx.realtime.presence = announcer;
  return {
    onJoin(socket) {
      announcer.joined(socket);
    },
    async onDisconnect(socket, io) {
      const { ringId, memberId, joined } = socket.data;
      if (!joined || ctx.lifecycle.draining) return;
      const registry = ctx.realtime.presenceRegistry;
      // Without Redis the release cannot be recorded; the entry goes with this instance's others.
      if (registry && ctx.realtime.isShared && !holdsMemberLocally(io, memberId))
        await registry.release(memberId);
      if (await ctx.realtime.isMemberConnected(memberId)) return;
      announcer.offline(ringId, memberId);
    },
    async onClose() {
      await announcer.close();
    },
  };
}

/**
 * The presence-sweep job: members held by instances that stopped beating (killed, or drained and
 * gone) are announced offline to their Ring, unless they have a joined socket again somewhere
 * (one look at who is online per Ring, not one per member: a dead instance may have held
 * thousands). Returns the members announced. A no-op without Redis (one instance: nobody else to
 * tell).
 */
export async function sweepDeadInstances(ctx: AppContext): Promise<string[]> {
  const registry = ctx.realtime.presenceRegistry;
  const announcer = ctx.realtime.presence;
  // While this instance's Redis link is down it cannot tell a dead instance from its own outage.
  if (!registry || !announcer || !ctx.realtime.isShared) return [];
  const byRing = new Map<string, string[]>();
  for (const { memberId, ringId } of await registry.claimOrphans()) {
    const members = byRing.get(ringId);
    if (members) members.push(memberId);
    else byRing.set(ringId, [memberId]);
  }
  const announced: string[] = [];
  for (const [ringId, memberIds] of byRing) {
    const online = await ctx.realtime.onlineMemberIds(ringId);
    for (const memberId of memberIds) {
      if (online.has(memberId)) continue;
      announcer.offline(ringId, memberId);
      announced.push(memberId);
    }
  }
  return announced;
}
