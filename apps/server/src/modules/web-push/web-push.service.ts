import { createECDH, createPublicKey } from 'node:crypto';
import {
  WEB_PUSH_MAX_SUBSCRIPTIONS,
  WEB_PUSH_MESSAGES,
  type TWebPushPayload,
  type TWebPushSubscribeRequest,
} from '@securering/contract';
import type { FastifyReply } from 'fastify';
import type WebPush from 'web-push';
import type { AppContext } from '../../app-context';
import { badRequest } from '../../lib/app-error';
import { newId } from '../../lib/ids';
import type { RingMembership } from '../rings/ring.guard';
import {
  PUSH_COALESCE_MS,
  PUSH_CONCURRENCY,
  PUSH_REQUEST_TIMEOUT_MS,
  PUSH_TTL_SEC,
  endpointHost,
  endpointRefusal,
  outcomeOf,
} from './web-push.policy';
import { WebPushRepository, type PushTarget, type VapidKeys } from './web-push.repository';

/**
 * The web-push library (about 1.5 MiB of heap) is loaded when a key pair is first made or a push
 * first sent, so an instance where nobody subscribes never loads it (issue 30's memory budget).
 */
let webPushModule: Promise<typeof WebPush> | undefined;
/**
 * A new VAPID key pair in web-push's format (`generateVAPIDKeys`: the P-256 public point
 * uncompressed, 65 bytes, and the private scalar, 32 bytes, both base64url), made with node:crypto
 * so that a first start does not load web-push for it.
 */
export function newVapidKeys(): VapidKeys {
  const curve = createECDH('prime256v1');
  curve.generateKeys();
  const fixed = (bytes: Buffer, length: number) =>
    bytes.length < length ? Buffer.concat([Buffer.alloc(length - bytes.length), bytes]) : bytes;
  return {
    publicKey: fixed(curve.getPublicKey(), 65).toString('base64url'),
    privateKey: fixed(curve.getPrivateKey(), 32).toString('base64url'),
  };
}

const loadWebPush = (): Promise<typeof WebPush> =>
  (webPushModule ??= import('web-push').then((module) => module.default));

/** A message just stored, as the fan-out needs it: never its content. */
export interface StoredMessage {
  ringId: string;
  /** The conversation's row id (coalescing key) and kind. */
  conversationRowId: string;
  kind: 'room' | 'dm';
  senderId: string;
  /** The envelope's epoch: who may read the room at it. */
  epoch: number;
  /** A private conversation's two members. */
  participants: readonly string[];
}

/**
 * Web Push (issue 29): the VAPID key pair (made at first start, kept in the database), the
 * members' subscriptions (opt-in per device), and the push sent when a message is stored to each
 * member of the conversation who has a subscription and no connected socket, but the sender, at
 * most once per member and conversation per PUSH_COALESCE_MS. Pushes run after the send has
 * answered, bounded in time and concurrency; failures are logged, a 404/410 forgets the subscription.
 */
export class WebPushService {
  private readonly repo: WebPushRepository;
  private readonly ringsWithSubscriptions: RingsWithSubscriptions;

  constructor(private readonly ctx: AppContext) {
    this.repo = new WebPushRepository(ctx.db);
    this.ringsWithSubscriptions = ringsWithSubscriptionsOf(ctx, this.repo);
  }

  /** The key pair, made and stored on first use (the first instance to store it wins). */
  async keys(): Promise<VapidKeys> {
    const stored = await this.repo.findKeys();
    if (stored) return stored;
    return this.repo.insertKeysIfAbsent(newVapidKeys(), this.ctx.clock.now().toISOString());
  }

  async publicKey(): Promise<string> {
    return (await this.keys()).publicKey;
  }

  /** Keeps this device's subscription for the caller; beyond the cap, the oldest ones go. */
  async subscribe(caller: RingMembership, input: TWebPushSubscribeRequest): Promise<void> {
    const refused = endpointRefusal(input.endpoint, this.ctx.config.webPush);
    if (refused) throw badRequest(refused);
    if (!isP256Point(input.keys.p256dh)) throw badRequest(WEB_PUSH_MESSAGES.invalidKeys);
    await this.repo.upsert({
      id: newId(),
      member_id: caller.member.id,
      endpoint: input.endpoint,
      p256dh: input.keys.p256dh,
      auth: input.keys.auth,
      created_at: this.ctx.clock.now().toISOString(),
    });
    await this.repo.trimForMember(caller.member.id, WEB_PUSH_MAX_SUBSCRIPTIONS);
    this.ringsWithSubscriptions.forget(caller.ring.id);
  }

  /** Forgets this device's subscription for the caller (only the caller's own). */
  async unsubscribe(caller: RingMembership, endpoint: string): Promise<void> {
    await this.repo.deleteForMember(caller.member.id, endpoint);
  }

  /**
   * Schedules the pushes of a stored message and returns at once: they start once `reply` (the
   * send's answer) is written, so the sender never waits for them; without a reply, on a later turn.
   */
  messageStored(message: StoredMessage, reply?: FastifyReply): void {
    // A Ring known to have no subscription: nothing to schedule (fanOut would stop there).
    if (this.ringsWithSubscriptions.knownWithout(message.ringId)) return;
    if (reply) this.ctx.deferred.afterResponse(reply, 'web-push', () => this.fanOut(message));
    else this.ctx.deferred.run('web-push', () => this.fanOut(message));
  }

  /** The pushes of one message; resolves when every request has settled. */
  async fanOut(message: StoredMessage): Promise<void> {
    const { ctx } = this;
    // Most Rings have no subscription: one query per Ring and RINGS_CACHE_MS, not one per message.
    if (!(await this.ringsWithSubscriptions.has(message.ringId))) return;
    const targets =
      message.kind === 'room'
        ? await this.repo.findForRoom(message.ringId, message.epoch, message.senderId)
        : await this.repo.findForMembers(
            message.ringId,
            message.participants.filter((id) => id !== message.senderId),
          );
    if (targets.length === 0) return;
    const members = [...new Set(targets.map((t) => t.member_id))];
    const online =
      message.kind === 'room'
        ? await ctx.realtime.onlineMemberIds(message.ringId)
        : new Set(
            (
              await Promise.all(
                members.map(async (id) => ((await ctx.realtime.isMemberConnected(id)) ? id : null)),
              )
            ).filter((id): id is string => id !== null),
          );
    const due: string[] = [];
    for (const memberId of members) {
      if (online.has(memberId)) continue;
      const slot = await ctx.rateLimiter.hit(
        `web-push:${memberId}:${message.conversationRowId}`,
        1,
        PUSH_COALESCE_MS,
      );
      if (slot.allowed) due.push(memberId);
    }
    if (due.length === 0) return;
    const keys = await this.keys();
    const webpush = await loadWebPush();
    const payload: TWebPushPayload = { t: 'msg', r: message.ringId };
    const body = JSON.stringify(payload);
    const queue = targets.filter((t) => due.includes(t.member_id));
    // Each push encrypts (ECDH, AES-GCM) on the event loop: one at a time between I/O turns, so
    // requests and sockets of this instance never wait behind a burst of them.
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        await new Promise((resolve) => setImmediate(resolve));
        await this.deliver(webpush, next, body, keys);
      }
    };
    await Promise.all(Array.from({ length: Math.min(PUSH_CONCURRENCY, queue.length) }, worker));
  }

  /**
   * The VAPID Authorization header for the endpoint's push service (its origin is the JWT's
   * audience), signed once per audience and VAPID_REUSE_MS rather than once per push.
   */
  private vapidAuthorization(webpush: typeof WebPush, endpoint: string, keys: VapidKeys): string {
    const audience = new URL(endpoint).origin;
    const now = this.ctx.clock.now().getTime();
    const cacheKey = `${keys.publicKey} ${audience}`;
    const cached = vapidHeaders.get(cacheKey);
    if (cached && cached.until > now) return cached.value;
    const expiresSec = Math.floor((now + VAPID_LIFETIME_MS) / 1000);
    const { Authorization } = webpush.getVapidHeaders(
      audience,
      this.ctx.config.webPush.subject,
      keys.publicKey,
      keys.privateKey,
      'aes128gcm',
      expiresSec,
    );
    if (vapidHeaders.size > 1_000) vapidHeaders.clear();
    vapidHeaders.set(cacheKey, { value: Authorization, until: now + VAPID_REUSE_MS });
    return Authorization;
  }

  /** One request to one push service: encrypted payload (aes128gcm), VAPID, bounded in time. */
  private async deliver(
    webpush: typeof WebPush,
    target: PushTarget,
    body: string,
    keys: VapidKeys,
  ): Promise<void> {
    const { ctx } = this;
    const host = endpointHost(target.endpoint);
    // Checked again: a subscription stored under another configuration is not called.
    if (endpointRefusal(target.endpoint, ctx.config.webPush)) {
      await this.repo.deleteById(target.id);
      return;
    }
    try {
      const request = webpush.generateRequestDetails(
        { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
        body,
        {
          contentEncoding: 'aes128gcm',
          TTL: PUSH_TTL_SEC,
          urgency: 'high',
          // A newer push replaces an undelivered one at the push service.
          topic: 'securering-message',
        },
      );
      const headers: Record<string, string> = {
        Authorization: this.vapidAuthorization(webpush, target.endpoint, keys),
      };
      for (const [name, value] of Object.entries(request.headers))
        if (name.toLowerCase() !== 'content-length') headers[name] = String(value);
      const response = await fetch(request.endpoint, {
        method: request.method,
        headers,
        body: request.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(PUSH_REQUEST_TIMEOUT_MS),
      });
      await response.body?.cancel().catch(() => undefined);
      const outcome = outcomeOf(response.status);
      if (outcome === 'gone') await this.repo.deleteById(target.id);
      else if (outcome === 'failed') {
        await this.repo.markFailed(target.id, ctx.clock.now().toISOString());
        ctx.logger.warn({ host, status: response.status }, 'Web Push refusé par le service de notification');
      }
    } catch (error) {
      await this.repo.markFailed(target.id, ctx.clock.now().toISOString()).catch(() => undefined);
      ctx.logger.warn(
        { host, err: error instanceof Error ? error.message : String(error) },
        'Web Push impossible',
      );
    }
  }
}

/** A base64url uncompressed point of P-256 (on the curve), as browsers give p256dh. */
function isP256Point(value: string): boolean {
  const bytes = Buffer.from(value, 'base64url');
  if (bytes.length !== 65 || bytes[0] !== 0x04) return false;
  try {
    createPublicKey({
      key: {
        kty: 'EC',
        crv: 'P-256',
        x: bytes.subarray(1, 33).toString('base64url'),
        y: bytes.subarray(33).toString('base64url'),
      },
      format: 'jwk',
    });
    return true;
  } catch {
    return false;
  }
}

/** A VAPID JWT lives 12 h (the longest RFC 8292 allows is 24 h) and is reused for 1 h. */
const VAPID_LIFETIME_MS = 12 * 60 * 60_000;
const VAPID_REUSE_MS = 60 * 60_000;
const vapidHeaders = new Map<string, { value: string; until: number }>();

/** How long this instance trusts its knowledge that a Ring has no push subscription. */
const RINGS_CACHE_MS = 15_000;

/**
 * Which Rings have at least one push subscription, cached per app for RINGS_CACHE_MS so that the
 * message fan-out of a Ring nobody subscribed in costs no query (the fan-out benchmark). A
 * subscription made on this instance is seen at once; on another instance, within RINGS_CACHE_MS.
 */
class RingsWithSubscriptions {
  private readonly known = new Map<string, { has: boolean; until: number }>();

  constructor(
    private readonly repo: WebPushRepository,
    private readonly now: () => number,
  ) {}

  async has(ringId: string): Promise<boolean> {
    const now = this.now();
    const cached = this.cached(ringId, now);
    if (cached !== undefined) return cached;
    const has = await this.repo.ringHasSubscriptions(ringId);
    if (this.known.size > 10_000) this.known.clear();
    this.known.set(ringId, { has, until: now + RINGS_CACHE_MS });
    return has;
  }

  /** Whether the Ring is known, within RINGS_CACHE_MS, to have no subscription (no query made). */
  knownWithout(ringId: string): boolean {
    return this.cached(ringId, this.now()) === false;
  }

  /** The answer kept for the Ring, while it is fresh. */
  private cached(ringId: string, now: number): boolean | undefined {
    const entry = this.known.get(ringId);
    return entry && entry.until > now ? entry.has : undefined;
  }

  forget(ringId: string): void {
    this.known.delete(ringId);
  }
}

const ringsCaches = new WeakMap<AppContext, RingsWithSubscriptions>();

function ringsWithSubscriptionsOf(ctx: AppContext, repo: WebPushRepository): RingsWithSubscriptions {
  let cache = ringsCaches.get(ctx);
  if (!cache) {
    cache = new RingsWithSubscriptions(repo, () => ctx.clock.now().getTime());
    ringsCaches.set(ctx, cache);
  }
  return cache;
}
