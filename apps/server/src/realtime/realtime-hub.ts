import type { ServerToClientEvents, TRealtimeMode } from '@securering/contract';
import type { PresenceAnnouncer } from './presence';
import type { PresenceRegistry } from './presence-registry';
import type { RealtimeRestartOrder, TypedServer } from './realtime-server';

export const ringRoom = (ringId: string) => `ring:${ringId}`;
export const memberRoom = (memberId: string) => `member:${memberId}`;
/**
 * The sockets of a Ring's members who may read its room (admitted in the membership log, not
 * deactivated there): room messages go here, so a newcomer waiting for admission receives no
 * ciphertext, sender or timing of a conversation it cannot read (issue 24).
 */
export const ringReadersRoom = (ringId: string) => `ring-readers:${ringId}`;
/** The sockets opened with stream tokens of one Ring session. */
export const sessionRoom = (sessionId: string) => `session:${sessionId}`;

type EventArgs<E extends keyof ServerToClientEvents> = Parameters<ServerToClientEvents[E]>;

/** What the back office shows of the realtime service. */
export interface RealtimeStatus {
  /** Seconds since this instance's realtime service started or was last restarted. */
  uptimeSec: number;
  /** Epoch ms when the realtime settings were last read, or null if never. */
  lastConfigFetchMs: number | null;
  /** Connected sockets on every instance. */
  sockets: number;
  /** Distinct Ring rooms with at least one socket, on every instance. */
  ringRooms: number;
}

/**
 * What services use to push events. Emits go through the socket.io adapter, so with Redis they
 * reach sockets connected to any instance. Without an attached server (some tests) emits are no-ops.
 */
export class RealtimeHub {
  private io: TypedServer | undefined;
  private crossInstance = false;
  private startedAt = Date.now();
  private lastConfigFetchMs: number | null = null;
  /** Which instance holds which online members (Redis only): see presence-registry.ts. */
  presenceRegistry: PresenceRegistry | undefined;
  /** Online and offline announcements, in batches per Ring (set by the presence feature). */
  presence: PresenceAnnouncer | undefined;
  private readonly invalidationListeners = new Map<string, Set<() => void>>();
  /** Whether this instance's Redis links (the adapter's) are up; always true without Redis. */
  private sharedLinkUp = true;
  private readonly sharedLinkListeners = new Set<(up: boolean) => void>();

  /** `crossInstance`: the adapter reaches other instances (Redis), so restarts are broadcast. */
  attach(
    io: TypedServer,
    options: { crossInstance?: boolean; presenceRegistry?: PresenceRegistry | undefined } = {},
  ): void {
    this.io = io;
    this.crossInstance = options.crossInstance ?? false;
    this.presenceRegistry = options.presenceRegistry;
    this.startedAt = Date.now();
  }

  detach(): void {
    this.io = undefined;
    this.presenceRegistry = undefined;
  }

  get server(): TypedServer | undefined {
    return this.io;
  }

  /**
   * Whether events reach the sockets of every instance now: false while this instance's Redis
   * link is down (issue 26). Its sockets are then told to poll (`realtime_mode`), presence across
   * instances is unknown, and questions to the other instances get this instance's answer only.
   */
  get isShared(): boolean {
    return !this.crossInstance || this.sharedLinkUp;
  }

  /** The mode this instance's sockets are in: live pushes, or polling while Redis is down. */
  get mode(): TRealtimeMode['mode'] {
    return this.isShared ? 'live' : 'polling';
  }

  /**
   * The adapter's Redis links went down or came back: tells this instance's sockets (only its
   * own: nothing crosses instances now) and the listeners.
   */
  setSharedLink(up: boolean): void {
    if (up === this.sharedLinkUp) return;
    this.sharedLinkUp = up;
    this.io?.local.emit('realtime_mode', { mode: this.mode });
    for (const listener of this.sharedLinkListeners) listener(up);
  }

  /** `listener` runs whenever the Redis link goes down (false) or comes back (true). */
  onSharedLinkChange(listener: (up: boolean) => void): () => void {
    this.sharedLinkListeners.add(listener);
    return () => this.sharedLinkListeners.delete(listener);
  }

  /**
   * The sockets in `room` on every instance, or on this one only when the others cannot be asked
   * (link down, or an instance that does not answer within the adapter's request timeout).
   */
  private async socketsIn(room?: string) {
    const io = this.io;
    if (!io) return [];
    const target = room ? io.in(room) : io;
    if (!this.isShared) return target.local.fetchSockets();
    return target.fetchSockets().catch(() => target.local.fetchSockets());
  }

  emitToRing<E extends keyof ServerToClientEvents>(ringId: string, event: E, ...args: EventArgs<E>): void {
    this.io?.to(ringRoom(ringId)).emit(event, ...args);
  }

  /** To the members who may read the Ring's room (see ringReadersRoom). */
  emitToRingReaders<E extends keyof ServerToClientEvents>(
    ringId: string,
    event: E,
    ...args: EventArgs<E>
  ): void {
    this.io?.to(ringReadersRoom(ringId)).emit(event, ...args);
  }

  /** As emitToRingReaders, but not to `memberId`'s own sockets (its other tabs included). */
  emitToOtherRingReaders<E extends keyof ServerToClientEvents>(
    ringId: string,
    memberId: string,
    event: E,
    ...args: EventArgs<E>
  ): void {
    this.io
      ?.to(ringReadersRoom(ringId))
      .except(memberRoom(memberId))
      .emit(event, ...args);
  }

  /** A member just admitted (or reactivated) in the log: its open sockets, on every instance, read the room now. */
  addRingReader(ringId: string, memberId: string): void {
    this.io?.in(memberRoom(memberId)).socketsJoin(ringReadersRoom(ringId));
  }

  emitToMember<E extends keyof ServerToClientEvents>(
    memberId: string,
    event: E,
    ...args: EventArgs<E>
  ): void {
    this.io?.to(memberRoom(memberId)).emit(event, ...args);
  }

  /**
   * Emits to several members' rooms at once (each socket gets it once), except one socket: the
   * one whose action this is, which already has its answer.
   */
  emitToMembers<E extends keyof ServerToClientEvents>(
    memberIds: string[],
    exceptSocketId: string | undefined,
    event: E,
    ...args: EventArgs<E>
  ): void {
    if (!this.io || memberIds.length === 0) return;
    const target = this.io.to(memberIds.map(memberRoom));
    (exceptSocketId ? target.except(exceptSocketId) : target).emit(event, ...args);
  }

  /** Whether a member has a socket that joined its Ring's room (online), on any instance. */
  async isMemberOnline(memberId: string): Promise<boolean> {
    return (await this.socketsIn(memberRoom(memberId))).some((s) => s.data.joined);
  }

  /** Members with a socket in the Ring's room, on any instance (the adapter asks the others). */
  async onlineMemberIds(ringId: string): Promise<Set<string>> {
    const sockets = await this.socketsIn(ringRoom(ringId));
    return new Set(sockets.map((s) => s.data.memberId));
  }

  /** Whether a member still has a socket anywhere. */
  async isMemberConnected(memberId: string): Promise<boolean> {
    return (await this.socketsIn(memberRoom(memberId))).length > 0;
  }

  /**
   * Closes every socket of a member (removed, deactivated, access ended), on every instance: the
   * adapter carries the order to the others (Redis).
   */
  disconnectMember(memberId: string): void {
    this.io?.in(memberRoom(memberId)).disconnectSockets(true);
  }

  /** Closes the sockets opened under one Ring session (its logout), on every instance. */
  disconnectSession(sessionId: string): void {
    this.io?.in(sessionRoom(sessionId)).disconnectSockets(true);
  }

  /**
   * Tells every instance that what it caches under `topic` is stale (this one at once, the others
   * through the adapter): e.g. the public plans answer after an admin changed a plan.
   */
  invalidate(topic: string): void {
    this.invalidateLocal(topic);
    if (this.crossInstance) this.io?.serverSideEmit('cache_invalidate', topic);
  }

  /** Runs the listeners of `topic` in this process (another instance's invalidate arrives here). */
  invalidateLocal(topic: string): void {
    for (const listener of this.invalidationListeners.get(topic) ?? []) listener();
  }

  /** `listener` runs whenever `topic` is invalidated on any instance. */
  onInvalidate(topic: string, listener: () => void): void {
    const listeners = this.invalidationListeners.get(topic) ?? new Set();
    listeners.add(listener);
    this.invalidationListeners.set(topic, listeners);
  }

  /** Records that the realtime settings were just read. */
  noteConfigFetched(atMs: number = Date.now()): void {
    this.lastConfigFetchMs = atMs;
  }

  /** Sockets and Ring rooms across instances (fetchSockets asks the other instances too). */
  async status(): Promise<RealtimeStatus> {
    const sockets = await this.socketsIn();
    const rings = new Set<string>();
    for (const socket of sockets)
      for (const room of socket.rooms) if (room.startsWith('ring:')) rings.add(room);
    return {
      uptimeSec: Math.max(0, Math.floor((Date.now() - this.startedAt) / 1000)),
      lastConfigFetchMs: this.lastConfigFetchMs,
      sockets: sockets.length,
      ringRooms: rings.size,
    };
  }

  /**
   * Restarts the realtime service on every instance: applies the settings just read, then closes
   * every connection at the transport level. Clients see a transport close (not a server
   * "disconnect", which socket.io clients do not retry) and reconnect by themselves, each with a
   * fresh stream token.
   */
  restart(order: RealtimeRestartOrder): void {
    if (!this.io) return;
    this.restartLocal(order);
    if (this.crossInstance) this.io.serverSideEmit('realtime_restart', order);
  }

  /** The part of a restart each instance does for its own sockets. */
  restartLocal(order: RealtimeRestartOrder): void {
    const io = this.io;
    if (!io) return;
    if (Number.isFinite(order.pingIntervalMs) && order.pingIntervalMs > 0) {
      io.engine.opts.pingInterval = order.pingIntervalMs;
    }
    for (const socket of io.of('/').sockets.values()) socket.conn.close();
    this.startedAt = Date.now();
    this.lastConfigFetchMs = Date.now();
  }

  /** Applies settings read at start-up (the heartbeat is socket.io's ping interval). */
  applyConfig(order: RealtimeRestartOrder): void {
    if (!this.io) return;
    if (Number.isFinite(order.pingIntervalMs) && order.pingIntervalMs > 0) {
      this.io.engine.opts.pingInterval = order.pingIntervalMs;
    }
    this.lastConfigFetchMs = Date.now();
  }
}
