import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/** How often an instance says it is alive. */
export const PRESENCE_HEARTBEAT_MS = 5_000;
/** An instance silent for this long is dead: its members are checked and announced offline. */
export const PRESENCE_TTL_MS = 15_000;
/** How often live instances look for dead ones (the presence-sweep job). */
export const PRESENCE_SWEEP_MS = 5_000;

/** A member a dead instance held: its Ring, to announce it there. */
export interface OrphanMember {
  memberId: string;
  ringId: string;
}

/**
 * Which instance holds which online members, in Redis, so that members of an instance that died
 * (SIGKILL, lost machine) do not stay "online" for the others: nothing runs on a dead process to
 * announce them offline, and socket.io's Redis adapter forgets its sockets without telling anyone.
 *
 * Each instance has an id of its own for its lifetime (`<INSTANCE_NAME>:<pid>:<random>`: a restart is
 * a new instance), lists itself in `presence:instances`, refreshes `presence:alive:<id>` (expires
 * after {@link PRESENCE_TTL_MS}) every {@link PRESENCE_HEARTBEAT_MS}, and keeps
 * `presence:members:<id>` (member id → Ring id) for the members with a joined socket on it. The
 * sweep on every live instance finds listed instances whose alive key expired; exactly one of them
 * claims each (SREM answers 1 once) and hands back its members, which the caller announces offline
 * unless they reconnected elsewhere. A member is offline for the others within TTL + sweep period
 * (≤ 20 s) of its instance's death.
 */
export class PresenceRegistry {
  readonly instanceId: string;
  private timer: NodeJS.Timeout | undefined;
  private readonly instancesKey: string;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    instanceName: string,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    this.instanceId = `${instanceName}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.instancesKey = `${prefix}presence:instances`;
  }

  private aliveKey(id: string): string {
    return `${this.prefix}presence:alive:${id}`;
  }

  private membersKey(id: string): string {
    return `${this.prefix}presence:members:${id}`;
  }

  /**
   * Registers this instance and keeps it alive until stop(). `heldNow` lists the members held
   * here: if another instance swept this one (Redis unreachable past the TTL), they are recorded
   * again on the next beat, so a later death of this instance is still noticed.
   */
  async start(heldNow: () => OrphanMember[] = () => []): Promise<void> {
    await this.beat(heldNow, true);
    // While Redis is down a beat cannot be recorded: skip it quietly (the link's watcher logs the
    // outage once); the first beat after its return lists this instance's members again.
    this.timer = setInterval(() => {
      if (this.redis.status !== 'ready') return;
      void this.beat(heldNow, false).catch(this.onError);
    }, PRESENCE_HEARTBEAT_MS);
    this.timer.unref();
  }

  private async beat(heldNow: () => OrphanMember[], first: boolean): Promise<void> {
    const results = await this.redis
      .multi()
      .sadd(this.instancesKey, this.instanceId)
      .set(this.aliveKey(this.instanceId), String(Date.now()), 'PX', PRESENCE_TTL_MS)
      .exec();
    const added = Number(results?.[0]?.[1] ?? 0) === 1;
    if (!added || first) return;
    const held = heldNow();
    if (held.length > 0)
      await this.redis.hset(
        this.membersKey(this.instanceId),
        Object.fromEntries(held.map((m) => [m.memberId, m.ringId])),
      );
  }

  /** Sockets of these members joined their Ring's room on this instance (one command). */
  async holdAll(members: OrphanMember[]): Promise<void> {
    if (members.length === 0) return;
    await this.redis.hset(
      this.membersKey(this.instanceId),
      Object.fromEntries(members.map((m) => [m.memberId, m.ringId])),
    );
  }

  /** The last socket of `memberId` on this instance is gone. */
  async release(memberId: string): Promise<void> {
    await this.redis.hdel(this.membersKey(this.instanceId), memberId);
  }

  /**
   * Stops the heartbeat. A clean stop with no member left unregisters at once; a draining stop
   * (sockets told to reconnect elsewhere) only stops beating, so the other instances sweep its
   * members after the TTL and announce offline those who did not come back.
   */
  async stop(options: { handOver: boolean }): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    if (options.handOver) return;
    await this.redis
      .multi()
      .srem(this.instancesKey, this.instanceId)
      .del(this.aliveKey(this.instanceId), this.membersKey(this.instanceId))
      .exec();
  }

  /**
   * Claims the instances that stopped beating and returns the members they held. Each dead
   * instance is claimed by one caller only, whichever instance runs the sweep first.
   */
  async claimOrphans(): Promise<OrphanMember[]> {
    const listed = await this.redis.smembers(this.instancesKey);
    const others = listed.filter((id) => id !== this.instanceId);
    if (others.length === 0) return [];
    const checks = this.redis.pipeline();
    for (const id of others) checks.exists(this.aliveKey(id));
    const alive = ((await checks.exec()) ?? []).map(([, n]) => Number(n) === 1);
    const orphans: OrphanMember[] = [];
    for (const [i, id] of others.entries()) {
      if (alive[i]) continue;
      if ((await this.redis.srem(this.instancesKey, id)) !== 1) continue;
      const key = this.membersKey(id);
      const [[, held]] = (await this.redis.multi().hgetall(key).del(key).exec()) as [
        [Error | null, Record<string, string>],
      ];
      for (const [memberId, ringId] of Object.entries(held ?? {})) orphans.push({ memberId, ringId });
    }
    return orphans;
  }
}
