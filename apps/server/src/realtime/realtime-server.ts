import type { IncomingMessage, Server as HttpServer } from 'node:http';
import fastifyCookie from '@fastify/cookie';
import {
  MESSAGES,
  ZJoinRing,
  type ClientToServerEvents,
  type TJoinRing,
  type TJoinRingAck,
  type ServerToClientEvents,
} from '@securering/contract';
import type { Redis } from 'ioredis';
import { Server, type Socket } from 'socket.io';
import type { AppContext } from '../app-context';
import { findLiveRingAccess } from '../modules/rings/ring.guard';
import { RingRepository, subjectIsActiveMember, type RingAccess } from '../modules/rings/ring.repository';
import { SESSION_COOKIES } from '../plugins/auth';
import { BackpressureGuard } from './backpressure';
import { withBroadcastDelivery, type DeliveredBroadcast } from './broadcast-delivery';
import { PresenceRegistry } from './presence-registry';
import { signalCatchUpOnReconnect } from './catch-up-signal';
import { PublishWindow } from './publish-window';
import {
  createResilientAdapter,
  guardAdapterClient,
  isResilientRedisAdapter,
  type ResilientRedisAdapter,
} from './resilient-redis-adapter';
import { isRedisReady, watchRedisClient } from '../lib/redis-client';
import { NOTHING_READABLE, firstReadableEpoch } from '../modules/ring-keys/ring-keys.policy';
import { memberRoom, ringReadersRoom, ringRoom, sessionRoom } from './realtime-hub';
import { errorSummary, socketFailure } from './socket-events';

/** Whether a member's socket receives the room's messages (see ringReadersRoom). */
const mayReadRoom = (member: Parameters<typeof firstReadableEpoch>[0]) =>
  firstReadableEpoch(member) !== NOTHING_READABLE;

/** The longest close() waits for socket hooks still running (above the adapter's 5 s request timeout). */
const CLOSE_HOOKS_WAIT_MS = 6000;
/** How long a closing websocket may wait for its peer's close frame when the server stops. */
const LINGERING_SOCKET_MS = 1000;
const WEBSOCKET_CLOSED = 3;
interface LingeringWebSocket {
  readyState: number;
  terminate(): void;
}

export interface SocketData {
  memberId: string;
  /** The Ring session whose stream token opened this socket; the socket ends with it. */
  sessionId: string;
  /** The member's Ring, known from the first join_ring ('' before: nothing is served until then). */
  ringId: string;
  joined: boolean;
}

/** What a restart applies; sent to the other instances through the adapter. */
export interface RealtimeRestartOrder {
  /** socket.io ping interval, from the heartbeat setting. */
  pingIntervalMs: number;
}

/** Messages between server instances (socket.io serverSideEmit, carried by the Redis adapter). */
export interface InterServerEvents {
  realtime_restart: (order: RealtimeRestartOrder) => void;
  /** A cached answer (by topic) is stale on every instance: RealtimeHub.invalidate. */
  cache_invalidate: (topic: string) => void;
  /**
   * An instance listens again after Redis returned: each other instance answers with the broadcasts
   * it published in the last `msAgo` ms ([channel, base64 payload]; publish-window.ts).
   */
  replay_window: (request: { msAgo: number }, answer: (entries: Array<[string, string]>) => void) => void;
}

export type TypedServer = Server<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
export type TypedSocket = Socket<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;

/** The realtime settings in milliseconds, as the service uses them. */
export interface RealtimeSettings {
  heartbeatMs: number;
  graceMs: number;
}

/** Reads the realtime settings (heartbeat and grace, in seconds in the settings table). */
export async function loadRealtimeSettings(ctx: Pick<AppContext, 'settings'>): Promise<RealtimeSettings> {
  const values = await ctx.settings.getCategory('realtime');
  const seconds = (raw: string | undefined, fallback: number) => {
    const n = Number(raw);
    return Number.isFinite(n) && n > 0 ? n : fallback;
  };
  return {
    heartbeatMs: Math.round(seconds(values.heartbeat_sec, 20) * 1000),
    graceMs: Math.round(seconds(values.grace_sec, 3) * 1000),
  };
}

/** A feature plugs its socket handlers in here (chat, presence, calls). */
export interface SocketFeature {
  /** Registers handlers on a new authenticated socket. */
  onConnection?(socket: TypedSocket, io: TypedServer): void;
  /** The socket joined its Ring's room. */
  onJoin?(socket: TypedSocket, io: TypedServer): void | Promise<void>;
  /**
   * What the feature adds to a join_ring answer (the chat: the messages missed), read after the
   * socket entered the Ring's room and the join was checked. A failure only leaves it out.
   * `answered` settles once every reply carrying this answer has been encoded into the socket's
   * packets: the feature may then empty what it put in it (big pages would otherwise stay reachable
   * from the join's old frames until a full collection: MessagesService.deliverCatchUp).
   */
  joinAnswer?(
    request: TJoinRing,
    access: RingAccess,
    socket?: TypedSocket,
    answered?: Promise<void>,
  ): Promise<JoinAnswerPart>;
  /** The socket is gone (it has already left its rooms). */
  onDisconnect?(socket: TypedSocket, io: TypedServer): void | Promise<void>;
  /** The server is closing, its sockets gone and their hooks done: finish pending work. */
  onClose?(): void | Promise<void>;
}

/** The optional fields of a successful join_ring answer. */
export type JoinAnswerPart = Partial<Omit<Extract<TJoinRingAck, { ok: true }>, 'ok' | 'ringId'>>;

/** How a socket's join_ring check ended. */
type JoinOutcome =
  { kind: 'joined'; ringId: string; answer: JoinAnswerPart } | { kind: 'expired' } | { kind: 'forbidden' };

export interface RealtimeServer {
  io: TypedServer;
  startedAt: number;
  close(): Promise<void>;
}

/** While Redis is down, how often this instance checks that its sockets' Ring sessions still live. */
export const ENDED_SESSIONS_SWEEP_MS = 5000;

/**
 * Closes this instance's sockets whose Ring session ended (logout, deactivation, lapsed
 * subscription) — what the adapter would have carried from another instance. One read per session.
 */
export async function closeEndedSessions(ctx: AppContext, io: TypedServer): Promise<number> {
  const sessions = new Map<string, string>();
  for (const socket of io.of('/').sockets.values()) sessions.set(socket.data.sessionId, socket.data.memberId);
  let closed = 0;
  for (const [sessionId, memberId] of sessions) {
    const access = await findLiveRingAccess(ctx, sessionId);
    if (access && access.member.id === memberId) continue;
    io.in(sessionRoom(sessionId)).local.disconnectSockets(true);
    closed += 1;
  }
  return closed;
}

function tokenOf(socket: Socket): string | undefined {
  const fromAuth = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
  if (typeof fromAuth === 'string' && fromAuth) return fromAuth;
  const fromQuery = socket.handshake.query.token;
  return typeof fromQuery === 'string' && fromQuery ? fromQuery : undefined;
}

/** The Ring session cookie of a handshake (same-origin pages send it with the upgrade), if any. */
function ringCookieOf(socket: Socket): string | undefined {
  const header = socket.handshake.headers.cookie;
  if (!header) return undefined;
  const token = fastifyCookie.parse(header)[SESSION_COOKIES.ring.token];
  return token && token.length <= 200 ? token : undefined;
}

/**
 * Whether a handshake may come from where it says (cross-site WebSocket hijacking): a request with
 * an Origin header must come from this site — the Host it was sent to, or PUBLIC_URL. Requests
 * without one (same-origin polling GETs, non-browser clients) cannot be steered by another site's
 * page, whose requests always carry its Origin.
 */
export function isHandshakeOriginAllowed(
  request: Pick<IncomingMessage, 'headers'>,
  publicUrl: string,
): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.host === request.headers.host) return true;
  try {
    return url.origin === new URL(publicUrl).origin;
  } catch {
    return false;
  }
}

/**
 * socket.io on /socket.io. A connection is accepted only from this site's pages (Origin) with a
 * valid stream token or the Ring session cookie; the socket
 * then belongs to one member of one Ring and can join that Ring's room only.
 */
export function createRealtimeServer(
  httpServer: HttpServer,
  ctx: AppContext,
  features: SocketFeature[] = [],
): RealtimeServer {
  const io: TypedServer = new Server(httpServer, {
    path: '/socket.io',
    serveClient: false,
    // Same origin only: the SPA is served by this server.
    cors: undefined,
    pingInterval: 20_000,
    pingTimeout: 20_000,
    maxHttpBufferSize: 256 * 1024,
    allowRequest: (request, callback) =>
      callback(null, isHandshakeOriginAllowed(request, ctx.config.publicUrl)),
  });

  let subClient: Redis | undefined;
  let pubClient: Redis | undefined;
  const unwatch: Array<() => void> = [];

  // A client that stops reading is cut off past the limit; it reconnects and catches up by seq.
  const bufferLimit = ctx.config.cluster.socketBufferLimitBytes;
  const backpressure = new BackpressureGuard(
    () => io.of('/').sockets.values(),
    bufferLimit,
    (socket: TypedSocket, bytes) =>
      ctx.logger.warn(
        { memberId: socket.data.memberId, bufferedBytes: bytes, limitBytes: bufferLimit },
        'socket too slow: closed, it will catch up on reconnect',
      ),
  );
  backpressure.start();
  unwatch.push(() => backpressure.stop());
  // Every broadcast this instance writes to its sockets (its own, and those Redis carries from the
  // others), its websocket frame written straight to each websocket (broadcast-delivery.ts), and
  // seen once with its number of recipients here: the operators' delivery count and the
  // back-pressure check, without a listener per socket and per packet (issue 30).
  const onBroadcast = ({ event, recipients, bytes }: DeliveredBroadcast) => {
    if (recipients === 0) return;
    if (event !== undefined) ctx.operatorMetrics.countDeliveries(event, recipients);
    backpressure.noteBroadcast(bytes);
  };
  let presenceRegistry: PresenceRegistry | undefined;
  if (ctx.redis) {
    // The adapter's own two links, guarded: a Redis outage must never reject a promise nobody
    // handles (issue 26). While either is down, events stay on this instance and its sockets are
    // told to catch up by polling (RealtimeHub.setSharedLink).
    const reportAdapterError = (error: unknown) => {
      ctx.operatorMetrics.redisAdapterErrors.inc();
      ctx.logger.debug({ err: error }, 'socket.io adapter: Redis command failed');
    };
    const published = new PublishWindow();
    pubClient = guardAdapterClient(ctx.redis.duplicate(), reportAdapterError, published);
    subClient = guardAdapterClient(ctx.redis.duplicate(), reportAdapterError);
    const links = [pubClient, subClient];
    for (const [client, name] of [
      [pubClient, 'socket.io publish'],
      [subClient, 'socket.io subscribe'],
    ] as const)
      unwatch.push(watchRedisClient(client, ctx.logger, name));
    const onLinkChange = () => ctx.realtime.setSharedLink(links.every((link) => isRedisReady(link)));
    for (const link of links)
      for (const event of ['ready', 'close', 'end', 'reconnecting'] as const) link.on(event, onLinkChange);
    unwatch.push(() => {
      for (const link of links)
        for (const event of ['ready', 'close', 'end', 'reconnecting'] as const) link.off(event, onLinkChange);
    });
    io.adapter(
      withBroadcastDelivery(
        createResilientAdapter(
          pubClient,
          subClient,
          { key: `${ctx.config.redisKeyPrefix}socket.io` },
          published,
        ),
        onBroadcast,
      ),
    );
    // Back after an outage: what the others published meanwhile is pushed, then every page checks
    // its sequence numbers (no push lost meanwhile).
    const replayMissed = (msAgo: number) =>
      new Promise<number>((resolve) => {
        const adapter = io.of('/').adapter as ResilientRedisAdapter;
        io.serverSideEmit('replay_window', { msAgo }, (_error: unknown, answers: unknown[] | undefined) => {
          let applied = 0;
          for (const entries of answers ?? [])
            if (Array.isArray(entries)) applied += adapter.replay(entries as Array<[string, string]>);
          resolve(applied);
        });
      });
    unwatch.push(signalCatchUpOnReconnect(ctx.realtime, io, subClient, ctx.logger, replayMissed));
    presenceRegistry = new PresenceRegistry(
      ctx.redis,
      ctx.config.redisKeyPrefix,
      ctx.config.cluster.instanceName,
      (error) => ctx.logger.warn({ err: error }, 'presence heartbeat failed'),
    );
    const registry = presenceRegistry;
    registry
      .start(() => {
        // Swept by mistake (Redis unreachable for a while): list again the members held here.
        const held: Array<{ memberId: string; ringId: string }> = [];
        for (const socket of io.of('/').sockets.values())
          if (socket.data.joined) held.push({ memberId: socket.data.memberId, ringId: socket.data.ringId });
        return held;
      })
      .catch((error: unknown) => ctx.logger.error({ err: error }, 'presence registry start failed'));
  } else {
    // socket.io's default in-memory adapter, delivering the same way.
    io.adapter(withBroadcastDelivery(io.adapter()!, onBroadcast));
  }

  /**
   * Join and disconnect hooks still running (they ask the other instances through Redis): close()
   * waits for them, so none is cut off by Redis closing under it (the adapter does not catch that).
   */
  const pendingHooks = new Set<Promise<void>>();
  const track = (hook: Promise<void>): void => {
    pendingHooks.add(hook);
    void hook.finally(() => pendingHooks.delete(hook));
  };

  io.use(async (socket, next) => {
    try {
      const token = tokenOf(socket);
      if (!token) {
        // The page's own HttpOnly Ring cookie (allowRequest checked the Origin): the same rules as
        // a stream token — a live session of an active member of a serviceable Ring.
        const cookie = ringCookieOf(socket);
        if (!cookie) return next(new Error(MESSAGES.notAuthenticated));
        const now = ctx.clock.now();
        const access = await new RingRepository(ctx.db).findRingAccess(
          ctx.sessions.tokenHashOf(cookie) ?? '',
          now.toISOString(),
        );
        if (!access) return next(new Error(MESSAGES.sessionExpired));
        await ctx.sessions.touchIfStale(access.session, now);
        socket.data = { memberId: access.member.id, sessionId: access.session.id, ringId: '', joined: false };
        return next();
      }
      // Single use, and only while the Ring session that minted it is live and its member active
      // in a serviceable Ring (one statement); join_ring checks them again.
      const grant = await ctx.sessions.consumeStreamToken(token, subjectIsActiveMember);
      if (!grant) return next(new Error(MESSAGES.sessionExpired));
      socket.data = { memberId: grant.memberId, sessionId: grant.sessionId, ringId: '', joined: false };
      next();
    } catch (error) {
      ctx.logger.error({ err: error }, 'socket authentication failed');
      next(new Error(MESSAGES.internalError));
    }
  });

  io.on('connection', (socket: TypedSocket) => {
    /** This socket's join_ring in progress, and the payload it answers. */
    let joining: { payload: string; outcome: Promise<JoinOutcome> } | undefined;
    void socket.join([memberRoom(socket.data.memberId), sessionRoom(socket.data.sessionId)]);
    // Redis is down: this instance pushes only its own events, so the page polls meanwhile.
    if (!ctx.realtime.isShared) {
      socket.emit('realtime_mode', { mode: 'polling' });
      // The adapter counts broadcasts only: this instance's one emit to a single socket is counted here.
      ctx.operatorMetrics.countDeliveries('realtime_mode', 1);
    }

    /**
     * The session, the membership and the Ring, read from the database (one query); then the
     * socket enters the Ring's room, and only then do the features read what goes in the answer
     * (the messages missed): whatever is sent after that read reaches the socket as a push.
     */
    const join = async (request: TJoinRing): Promise<JoinOutcome> => {
      const access = await findLiveRingAccess(ctx, socket.data.sessionId);
      if (!access || access.member.id !== socket.data.memberId) return { kind: 'expired' };
      if (access.ring.id !== request.ringId) return { kind: 'forbidden' };
      if (!socket.connected) return { kind: 'joined', ringId: access.ring.id, answer: {} };
      socket.data.ringId = access.ring.id;
      void socket.join(
        mayReadRoom(access.member)
          ? [ringRoom(access.ring.id), ringReadersRoom(access.ring.id)]
          : ringRoom(access.ring.id),
      );
      let markAnswered: () => void = () => undefined;
      const answered = new Promise<void>((resolve) => (markAnswered = resolve));
      const parts = await Promise.all(
        features.map((feature) =>
          feature.joinAnswer
            ? feature.joinAnswer(request, access, socket, answered).catch((error: unknown) => {
                ctx.logger.error({ err: error }, 'socket join answer failed');
                return {};
              })
            : {},
        ),
      );
      // Every join_ring waiting for this outcome replies in the microtasks that follow its return
      // (the ack is encoded at once), so before the next macrotask.
      setImmediate(markAnswered);
      return {
        kind: 'joined',
        ringId: access.ring.id,
        answer: Object.assign({}, ...parts) as JoinAnswerPart,
      };
    };

    socket.on('join_ring', async (payload, ack) => {
      const parsed = ZJoinRing.safeParse(payload);
      const reply = typeof ack === 'function' ? ack : () => undefined;
      if (!parsed.success || (socket.data.joined && parsed.data.ringId !== socket.data.ringId)) {
        reply({ ok: false, error: MESSAGES.forbidden });
        return;
      }
      // A join_ring sent again with the same payload while one runs (clients retry every second)
      // waits for the same answer rather than asking the database once more: under a wave of
      // reconnections, retries would otherwise multiply the work that made the answer late.
      const key = JSON.stringify(parsed.data);
      let outcome: JoinOutcome;
      try {
        if (joining?.payload !== key) {
          const started = { payload: key, outcome: join(parsed.data) };
          joining = started;
          const forget = () => {
            if (joining === started) joining = undefined;
          };
          started.outcome.then(forget, forget);
        }
        outcome = await joining.outcome;
      } catch (error) {
        const failure = socketFailure(error);
        if (failure.cause === 'bug') ctx.logger.error({ err: error }, 'socket join check failed');
        else ctx.logger.warn({ err: errorSummary(error), cause: failure.cause }, 'socket join not served');
        reply({ ok: false, error: failure.error });
        return;
      }
      if (outcome.kind === 'expired') {
        reply({ ok: false, error: MESSAGES.sessionExpired });
        socket.disconnect(true);
        return;
      }
      if (outcome.kind === 'forbidden') {
        reply({ ok: false, error: MESSAGES.forbidden });
        return;
      }
      if (!socket.connected) return;
      const firstJoin = !socket.data.joined;
      socket.data.joined = true;
      reply({ ok: true, ringId: outcome.ringId, ...outcome.answer });
      if (firstJoin)
        for (const feature of features)
          track(
            Promise.resolve(feature.onJoin?.(socket, io)).catch((error: unknown) =>
              ctx.logger.error({ err: error }, 'socket join hook failed'),
            ),
          );
    });

    socket.on('disconnect', () => {
      for (const feature of features)
        track(
          Promise.resolve(feature.onDisconnect?.(socket, io)).catch((error: unknown) =>
            ctx.logger.error({ err: error }, 'socket disconnect hook failed'),
          ),
        );
    });

    for (const feature of features) feature.onConnection?.(socket, io);
  });

  ctx.realtime.attach(io, { crossInstance: Boolean(ctx.redis), presenceRegistry });
  ctx.operatorMetrics.readFrom({
    connectedSockets: () => io.engine.clientsCount,
    joinedRings: () => {
      let rings = 0;
      for (const room of io.of('/').adapter.rooms.keys()) if (room.startsWith('ring:')) rings++;
      return rings;
    },
    databasePool: () => ctx.database.poolUse?.(),
  });
  if (pubClient && subClient) {
    ctx.realtime.setSharedLink(isRedisReady(pubClient) && isRedisReady(subClient));
    // Orders to close sockets (a logout, a deactivation) on another instance cannot reach this one
    // while Redis is down: check this instance's sockets against the database instead, every few
    // seconds meanwhile and once when the link is back.
    let sweep: NodeJS.Timeout | undefined;
    const sweepNow = () =>
      void closeEndedSessions(ctx, io).catch((error: unknown) =>
        ctx.logger.warn({ err: error }, 'socket session check failed'),
      );
    unwatch.push(
      ctx.realtime.onSharedLinkChange((up) => {
        clearInterval(sweep);
        sweep = undefined;
        if (!up) {
          sweep = setInterval(sweepNow, ENDED_SESSIONS_SWEEP_MS);
          sweep.unref();
        } else sweepNow();
      }),
      () => clearInterval(sweep),
    );
  }
  const startedAt = Date.now();

  // A restart asked on another instance: do the same for the sockets of this one.
  io.on('realtime_restart', (order) => ctx.realtime.restartLocal(order));
  io.on('cache_invalidate', (topic) => ctx.realtime.invalidateLocal(topic));
  io.on('replay_window', (request, answer) => {
    const msAgo = Number(request?.msAgo);
    const adapter = io.of('/').adapter;
    answer(isResilientRedisAdapter(adapter) && Number.isFinite(msAgo) ? adapter.publishedSince(msAgo) : []);
  });

  // The heartbeat setting is the ping interval of new connections (a restart applies changes).
  loadRealtimeSettings(ctx).then(
    (settings) => ctx.realtime.applyConfig({ pingIntervalMs: settings.heartbeatMs }),
    (error: unknown) => ctx.logger.warn({ err: error }, 'realtime settings unavailable at start-up'),
  );

  return {
    io,
    startedAt,
    async close() {
      const draining = ctx.lifecycle.draining;
      ctx.realtime.detach();
      // Close each transport rather than sending socket.io's "disconnect": clients see a transport
      // close and reconnect by themselves (through the load balancer, to another instance), then
      // catch up from the database by sequence number. A server "disconnect" is not retried.
      // A websocket whose peer does not answer the close frame would keep the HTTP server from
      // closing for ws's 30 s close timeout (past the forced exit): cut those after a second.
      const websockets = Object.values((io.engine as unknown as { clients: Record<string, unknown> }).clients)
        .map((client) => (client as { transport?: { socket?: LingeringWebSocket } }).transport?.socket)
        .filter((ws): ws is LingeringWebSocket => typeof ws?.terminate === 'function');
      io.engine.close();
      setTimeout(() => {
        for (const ws of websockets) if (ws.readyState !== WEBSOCKET_CLOSED) ws.terminate();
      }, LINGERING_SOCKET_MS).unref();
      // The disconnect hooks of those sockets, and join hooks still running, finish first (bounded:
      // a hook waiting on an instance that died gives up after the adapter's request timeout).
      await new Promise((resolve) => setImmediate(resolve));
      if (pendingHooks.size > 0)
        await Promise.race([
          Promise.allSettled([...pendingHooks]),
          new Promise((resolve) => setTimeout(resolve, CLOSE_HOOKS_WAIT_MS).unref()),
        ]);
      for (const feature of features)
        await Promise.resolve(feature.onClose?.()).catch((error: unknown) =>
          ctx.logger.warn({ err: error }, 'socket feature close failed'),
        );
      // Draining: the other instances sweep this one's members after its entry expires, and
      // announce offline only those who did not reconnect elsewhere.
      await presenceRegistry
        ?.stop({ handOver: draining })
        .catch((error: unknown) => ctx.logger.warn({ err: error }, 'presence registry stop failed'));
      await Promise.resolve(io.of('/').adapter.close?.()).catch((error: unknown) =>
        ctx.logger.warn({ err: error }, 'socket.io adapter close failed'),
      );
      for (const stop of unwatch) stop();
      subClient?.disconnect();
      pubClient?.disconnect();
    },
  };
}
