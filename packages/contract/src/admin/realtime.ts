import { z } from 'zod';
import { successOf } from '../common';

/** Replay guard of the realtime calls: X-Timestamp (unix seconds) within this many seconds. */
export const REALTIME_TIMESTAMP_TOLERANCE_SEC = 300;

export const REALTIME_MESSAGES = {
  invalidTimestamp: 'Horodatage invalide',
  superAdminOnly: 'Réservé au super administrateur',
  restartRequested: 'Redémarrage demandé. Le service WS se relancera sous 1-2 secondes.',
  restartFailed: 'Échec du redémarrage',
  network: 'Erreur réseau\u202f: impossible de contacter le service.',
  unreachable: 'Service non joignable',
} as const;

/** Whether an X-Timestamp header (unix seconds) is within the tolerance of `nowMs`. */
export function isFreshTimestamp(header: unknown, nowMs: number): boolean {
  if (typeof header !== 'string' || !/^\d{1,12}$/.test(header.trim())) return false;
  const sec = Number(header.trim());
  return Math.abs(nowMs / 1000 - sec) <= REALTIME_TIMESTAMP_TOLERANCE_SEC;
}

/** GET /api/admin/realtime-status.php */
export const ZRealtimeStatusResponse = successOf({
  heartbeat_ms: z.number(),
  grace_ms: z.number(),
  /** Seconds since the realtime service started or was last restarted (on this instance). */
  uptime_sec: z.number(),
  /** Epoch milliseconds when the realtime settings were last read. */
  last_config_fetch_ms: z.number().nullable(),
  pid: z.number().int(),
  /** Connected sockets on every instance. */
  sockets: z.number().int(),
  /** Rings with at least one joined socket, on every instance. */
  ringRoomsCount: z.number().int(),
});
export type TRealtimeStatusResponse = z.infer<typeof ZRealtimeStatusResponse>;

/** POST /api/admin/realtime-restart.php */
export const ZRealtimeRestartRequest = z.object({
  reason: z
    .string()
    .trim()
    .max(500, 'Motif trop long (500 caractères maximum)')
    .optional()
    .transform((v) => v ?? ''),
  at: z.union([z.string().max(50), z.number()]).optional(),
});
export type TRealtimeRestartRequest = z.input<typeof ZRealtimeRestartRequest>;

export const ZRealtimeRestartResponse = successOf({ message: z.string() });
export type TRealtimeRestartResponse = z.infer<typeof ZRealtimeRestartResponse>;
