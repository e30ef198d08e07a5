import { MESSAGES, type ClientToServerEvents } from '@securering/contract';
import type { z } from 'zod';
import type { AppContext } from '../app-context';
import { MINUTE_MS } from '../lib/clock';
import { unavailableDependency } from '../lib/dependency-errors';
import { isDiskFullError } from '../lib/disk-space';
import { findLiveRingAccess, type RingMembership } from '../modules/rings/ring.guard';
import type { TypedSocket } from './realtime-server';

/** How long a socket's membership check stays valid before the database is asked again. */
export const MEMBERSHIP_RECHECK_MS = 1000;

export interface SocketEventOptions<S extends z.ZodType> {
  /** The contract schema of the payload; anything else is refused before the handler runs. */
  schema: S;
  /** Events of this name one member may send per minute, on every instance together. */
  perMinute: number;
  /** Refuse the event until the socket joined its Ring's room (default true). */
  requireJoined?: boolean;
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

type EventName = Exclude<keyof ClientToServerEvents, 'join_ring'>;

/**
 * The one handler layer every client socket event goes through (CONVENTIONS: socket events get the
 * same care as routes): the payload is validated with the contract, a `ringId` in it must be the
 * socket's Ring, the socket must have joined, the member is rate-limited (first by this process's
 * counter, which turns a flood away without a Redis round trip, then by the shared limiter, so a
 * member with sockets on several instances has one budget), and the membership (active
 * member of a serviceable Ring, live Ring session: one query) is re-read from the database at most
 * {@link MEMBERSHIP_RECHECK_MS} old — a member whose access ended is disconnected instead of served.
 * Failures answer the optional ack with a French error and never reach the handler.
 */
export function createSocketEventBinder(ctx: AppContext, limiter = new SocketEventLimiter()) {
  const checkedAt = new WeakMap<TypedSocket, { at: number; membership: RingMembership }>();

  async function currentMembership(socket: TypedSocket): Promise<RingMembership | undefined> {
    const cached = checkedAt.get(socket);
    const now = Date.now();
    if (cached && now - cached.at < MEMBERSHIP_RECHECK_MS) return cached.membership;
    const access = await findLiveRingAccess(ctx, socket.data.sessionId);
    if (!access || access.member.id !== socket.data.memberId || access.ring.id !== socket.data.ringId) {
      checkedAt.delete(socket);
      return undefined;
    }
    const membership = { member: access.member, ring: access.ring };
    checkedAt.set(socket, { at: now, membership });
    return membership;
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
          ack({ ok: false, error: MESSAGES.invalidRequest });
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
          !(
            await ctx.rateLimiter.hit(
              `socket-event:${event}:${socket.data.memberId}`,
              options.perMinute,
              MINUTE_MS,
            )
          ).allowed
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
