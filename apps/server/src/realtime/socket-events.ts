import { MESSAGES, type ClientToServerEvents } from '@securering/contract';
import type { z } from 'zod';
import type { AppContext } from '../app-context';
import { MINUTE_MS } from '../lib/clock';
import { unavailableDependency } from '../lib/dependency-errors';
import { isDiskFullError } from '../lib/disk-space';
import type { RingMembership } from '../modules/rings/ring.guard';
import { RingRepository, type RingMemberRow, type RingRow } from '../modules/rings/ring.repository';
import type { TypedSocket } from './realtime-server';

/**
 * How old a socket's session and member rows may be when an event is served: re-read from the
 * database past this age (issue 30: once a second per socket was a third of a message's database
 * time). A logout, deactivation or removal closes the member's sockets at once (RealtimeHub's
 * disconnectSession and disconnectMember, on every instance); this bounds what ends otherwise (a row
 * changed by hand, a session revoked while Redis was down), as the ended-session sweep does.
 */
export const MEMBER_RECHECK_MS = 5000;

/**
 * How old the Ring row an event is served with may be (its settings, epoch, whether it still
 * serves its members: active, owner active, current subscription). One read per Ring and instance,
 * shared by all the Ring's sockets here, instead of one per socket.
 */
export const RING_RECHECK_MS = 1000;

export interface SocketEventOptions<S extends z.ZodType> {
  /** The contract schema of the payload; anything else is refused before the handler runs. */
  schema: S;
  /** Events of this name one member may send per minute, on every instance together. */
  perMinute: number;
  /** Refuse the event until the socket joined its Ring's room (default true). */
  requireJoined?: boolean;
  /**
   * What a payload the schema refuses is answered (default « Requête invalide »): send_message
   * answers as send.php would, with the contract's French message and the status.
   */
  invalidAck?: (error: z.ZodError) => Parameters<SocketAck>[0];
  /**
   * Whether the binder spends the member's shared budget of the event (default true). False: the
   * handler spends a budget of its own that is shared with another way in (send_message counts in
   * send.php's, so that a member has one budget over HTTP and socket, and one shared-limiter hit
   * per message). This process's counter (`perMinute`) still turns a flood away first.
   */
  sharedBudget?: boolean;
}

export type SocketAck = (result: { ok: boolean; error?: string; [key: string]: unknown }) => void;

export interface SocketEventContext {
  socket: TypedSocket;
  membership: RingMembership;
}

/** Fixed one-minute windows per member and event, in this process. */
export class SocketEventLimiter {
  private readonly counts = new Map<string, { window: number; count: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  allow(memberId: string, event: string, perMinute: number): boolean {
    const window = Math.floor(this.now() / 60_000);
    const key = `${memberId}:${event}`;
    const entry = this.counts.get(key);
    if (!entry || entry.window !== window) {
      if (this.counts.size > 50_000) this.sweep(window);
      this.counts.set(key, { window, count: 1 });
      return perMinute >= 1;
    }
    entry.count += 1;
    return entry.count <= perMinute;
  }

  private sweep(window: number): void {
    for (const [key, entry] of this.counts) if (entry.window !== window) this.counts.delete(key);
  }
}

/**
 * The Ring rows the socket events of this instance are served with, each re-read at most
 * {@link RING_RECHECK_MS} old (one read per Ring, whatever its number of sockets; concurrent askers
 * share it). `undefined`: the Ring no longer serves its members.
 */
export class SharedRingRows {
  private readonly rows = new Map<string, { at: number; ring: RingRow | undefined }>();
  private readonly reading = new Map<string, Promise<RingRow | undefined>>();

  constructor(
    private readonly read: (ringId: string) => Promise<RingRow | undefined>,
    private readonly maxAgeMs = RING_RECHECK_MS,
  ) {}

  async get(ringId: string, now: number): Promise<RingRow | undefined> {
    const known = this.rows.get(ringId);
    if (known && now - known.at < this.maxAgeMs) return known.ring;
    let pending = this.reading.get(ringId);
    if (!pending) {
      pending = this.read(ringId)
        .then((ring) => {
          this.remember(ringId, ring, now);
          return ring;
        })
        .finally(() => this.reading.delete(ringId));
      this.reading.set(ringId, pending);
    }
    return pending;
  }

  /**
   * The Ring read now, whatever the age of the row kept (a socket's first event: what it may do is
   * decided on the Ring as it is, not as another socket last saw it), and kept for the others
   * unless a newer read landed first.
   */
  async fresh(ringId: string, now: number): Promise<RingRow | undefined> {
    const ring = await this.read(ringId);
    const known = this.rows.get(ringId);
    if (!known || known.at <= now) this.remember(ringId, ring, now);
    return ring;
  }

  private remember(ringId: string, ring: RingRow | undefined, now: number): void {
    // Rings whose sockets left are forgotten once their rows are long stale.
    if (this.rows.size >= 1000)
      for (const [id, entry] of this.rows) if (now - entry.at > 60 * this.maxAgeMs) this.rows.delete(id);
    this.rows.set(ringId, { at: now, ring });
  }
}

type EventName = Exclude<keyof ClientToServerEvents, 'join_ring'>;

/**
 * The one handler layer every client socket event goes through (CONVENTIONS: socket events get the
 * same care as routes): the payload is validated with the contract, a `ringId` in it must be the
 * socket's Ring, the socket must have joined, the member is rate-limited (first by this process's
 * counter, which turns a flood away without a Redis round trip, then by the shared limiter, so a
 * member with sockets on several instances has one budget — unless the handler spends a shared
 * budget of its own, `sharedBudget: false`), and the membership is checked: the
 * live Ring session and its active member re-read from the database at most
 * {@link MEMBER_RECHECK_MS} old (and the session's expiry checked on every event), the Ring
 * (serviceable, its settings and epoch) at most {@link RING_RECHECK_MS} old — a member whose access
 * ended is disconnected instead of served.
 * Failures answer the optional ack with a French error and never reach the handler.
 */
export function createSocketEventBinder(ctx: AppContext, limiter = new SocketEventLimiter()) {
  const checkedAt = new WeakMap<
    TypedSocket,
    { at: number; member: RingMemberRow; sessionExpiresAt: number }
  >();
  const ringRepository = new RingRepository(ctx.db);
  const rings = new SharedRingRows((ringId) =>
    ringRepository.findServiceableRing(ringId, ctx.clock.now().toISOString()),
  );

  async function currentMembership(socket: TypedSocket): Promise<RingMembership | undefined> {
    const cached = checkedAt.get(socket);
    const now = Date.now();
    if (
      cached &&
      now - cached.at < MEMBER_RECHECK_MS &&
      ctx.clock.now().getTime() < cached.sessionExpiresAt
    ) {
      const ring = await rings.get(socket.data.ringId, now);
      if (ring) return { member: cached.member, ring };
      checkedAt.delete(socket);
      return undefined;
    }
    // The session and its member here; the Ring (serviceable, its row) read now for a socket's
    // first event, and then shared as for every event.
    const [live, ring] = await Promise.all([
      ringRepository.findLiveMemberBySession(socket.data.sessionId, ctx.clock.now().toISOString()),
      cached ? rings.get(socket.data.ringId, now) : rings.fresh(socket.data.ringId, now),
    ]);
    if (
      !live ||
      !ring ||
      live.member.id !== socket.data.memberId ||
      live.member.ring_id !== socket.data.ringId
    ) {
      checkedAt.delete(socket);
      return undefined;
    }
    checkedAt.set(socket, {
      at: now,
      member: live.member,
      sessionExpiresAt: Date.parse(live.sessionExpiresAt),
    });
    return { member: live.member, ring };
  }

  return function bind<S extends z.ZodType>(
    socket: TypedSocket,
    event: EventName,
    options: SocketEventOptions<S>,
    handler: (input: z.output<S>, context: SocketEventContext, ack: SocketAck) => Promise<void> | void,
  ): void {
    const listener = async (payload: unknown, maybeAck?: unknown) => {
      const ack: SocketAck = typeof maybeAck === 'function' ? (maybeAck as SocketAck) : () => undefined;
      try {
        if ((options.requireJoined ?? true) && !socket.data.joined) {
          ack({ ok: false, error: MESSAGES.forbidden });
          return;
        }
        const parsed = options.schema.safeParse(payload);
        if (!parsed.success) {
          ack(options.invalidAck?.(parsed.error) ?? { ok: false, error: MESSAGES.invalidRequest });
          return;
        }
        const input = parsed.data as z.output<S>;
        const claimedRing = (input as { ringId?: unknown } | null)?.ringId;
        if (claimedRing !== undefined && claimedRing !== socket.data.ringId) {
          ack({ ok: false, error: MESSAGES.forbidden });
          return;
        }
        if (
          !limiter.allow(socket.data.memberId, event, options.perMinute) ||
          (options.sharedBudget !== false &&
            !(
              await ctx.rateLimiter.hit(
                `socket-event:${event}:${socket.data.memberId}`,
                options.perMinute,
                MINUTE_MS,
              )
            ).allowed)
        ) {
          ack({ ok: false, error: MESSAGES.tooManyRequests });
          return;
        }
        const membership = await currentMembership(socket);
        if (!membership) {
          ack({ ok: false, error: MESSAGES.sessionExpired });
          socket.disconnect(true);
          return;
        }
        await handler(input, { socket, membership }, ack);
      } catch (error) {
        const failure = socketFailure(error);
        if (failure.cause === 'bug') ctx.logger.error({ err: error, event }, 'socket event failed');
        else
          ctx.logger.warn(
            { err: errorSummary(error), event, cause: failure.cause },
            'socket event not served',
          );
        ack({ ok: false, error: failure.error });
      }
    };
    (socket.on as (name: string, fn: (...args: unknown[]) => void) => void)(event, (payload, ack) => {
      void listener(payload, ack);
    });
  };
}

export type SocketEventBinder = ReturnType<typeof createSocketEventBinder>;

/**
 * What a socket event that failed answers, as HTTP does (plugins/errors.ts): a database or Redis
 * that is down or too busy says so in French (« Service momentanément indisponible… », 503 over
 * HTTP), a full disk too (507); anything else is a bug and stays the generic error.
 */
export function socketFailure(error: unknown): {
  cause: 'database' | 'redis' | 'disk_full' | 'bug';
  error: string;
} {
  const dependency = unavailableDependency(error);
  if (dependency) return { cause: dependency, error: MESSAGES.serviceUnavailable };
  if (isDiskFullError(error)) return { cause: 'disk_full', error: MESSAGES.diskFull };
  return { cause: 'bug', error: MESSAGES.internalError };
}

/** The parts of an expected failure worth a log line (no stack: not a bug). */
export function errorSummary(error: unknown): { name?: unknown; code?: unknown; message?: unknown } {
  if (!error || typeof error !== 'object') return { message: String(error) };
  const { name, code, message } = error as { name?: unknown; code?: unknown; message?: unknown };
  return { name, code, message };
}
