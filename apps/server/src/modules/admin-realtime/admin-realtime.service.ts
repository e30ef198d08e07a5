import { REALTIME_MESSAGES, isFreshTimestamp, type TRealtimeStatusResponse } from '@securering/contract';
import type { AppContext } from '../../app-context';
import type { AdminsTable } from '../../db/schema';
import { badRequest, forbidden } from '../../lib/app-error';
import { loadRealtimeSettings } from '../../realtime/realtime-server';
import type { RequestMeta } from '../sessions/session.service';

/** Status and restart of the realtime (socket.io) service for the Rings tab. */
export class AdminRealtimeService {
  constructor(private readonly ctx: AppContext) {}

  /** Replay guard: the caller's X-Timestamp must be within ±5 minutes of the server clock. */
  checkTimestamp(header: unknown): void {
    if (!isFreshTimestamp(header, this.ctx.clock.now().getTime()))
      throw badRequest(REALTIME_MESSAGES.invalidTimestamp);
  }

  async status(): Promise<TRealtimeStatusResponse> {
    const settings = await loadRealtimeSettings(this.ctx);
    this.ctx.realtime.noteConfigFetched();
    const status = await this.ctx.realtime.status();
    return {
      success: true,
      heartbeat_ms: settings.heartbeatMs,
      grace_ms: settings.graceMs,
      uptime_sec: status.uptimeSec,
      last_config_fetch_ms: status.lastConfigFetchMs,
      pid: process.pid,
      sockets: status.sockets,
      ringRoomsCount: status.ringRooms,
    };
  }

  /** The restart is for super admins only (spec 3 §6), whatever their module permissions. */
  assertMayRestart(actor: AdminsTable): void {
    if (actor.role !== 'super_admin') throw forbidden(REALTIME_MESSAGES.superAdminOnly);
  }

  /** Closes every socket on every instance; clients reconnect by themselves. */
  async restart(
    actor: AdminsTable,
    input: { reason: string; at?: string | number | undefined },
    meta: RequestMeta,
  ): Promise<void> {
    this.assertMayRestart(actor);
    const settings = await loadRealtimeSettings(this.ctx);
    const before = await this.ctx.realtime.status();
    this.ctx.realtime.restart({ pingIntervalMs: settings.heartbeatMs });
    await this.ctx.systemLog.adminAction(actor, meta, 'Redémarrage du service temps réel demandé', {
      reason: input.reason,
      requested_at: input.at ?? null,
      sockets_closed: before.sockets,
      heartbeat_ms: settings.heartbeatMs,
    });
  }
}
