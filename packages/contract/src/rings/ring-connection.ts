/**
 * How a Ring page keeps its realtime connection (spec 2 §9: unlimited attempts, 1 s up to 5 s
 * apart, a 20 s connection timeout, join_ring again every second until answered, a failed stream
 * token minted again after 1.5 s). Shared by the web client (apps/web/src/lib/realtime.ts) and the
 * driver that stands for it in tests and benchmarks (scripts/lib/ring-driver.mjs).
 */
export const RING_CONNECTION = {
  /** Shortest wait before a reconnection attempt after a failed one. */
  reconnectMinMs: 1000,
  /** Longest wait between two attempts. */
  reconnectMaxMs: 5000,
  /** socket.io's connection timeout. */
  connectTimeoutMs: 20_000,
  /** join_ring without an answer after this long is sent again this long later. */
  joinRetryMs: 1000,
  /** A stream token that could not be minted (network, 5xx, 429) is asked again after this. */
  tokenRetryMs: 1500,
  /**
   * A connected page holds the stream token of its next connection (`renew_stream_token`), so a
   * reconnection needs no HTTP call before the websocket: the first is asked at a random moment
   * within this after a join without one (the pages of a restarted instance do not all ask at once).
   */
  spareTokenFirstWithinMs: 30_000,
  /** The spare is renewed when it has less than this left to live… */
  spareTokenRenewBeforeMs: 60_000,
  /** …and used only while it has more than this left (else a token is minted over HTTP). */
  spareTokenUsableMs: 10_000,
} as const;

/**
 * When a connected page should ask for the stream token of its next connection: at a random
 * moment within `spareTokenFirstWithinMs` (at least a second) when it holds none, otherwise
 * `spareTokenRenewBeforeMs` before the one it holds expires. `expiresAt` and `now` in ms.
 */
export function spareTokenRenewalDelayMs(
  expiresAt: number | undefined,
  now: number,
  random: () => number = Math.random,
): number {
  const { spareTokenFirstWithinMs: within, spareTokenRenewBeforeMs: before } = RING_CONNECTION;
  if (expiresAt === undefined || !Number.isFinite(expiresAt) || expiresAt - now <= before)
    return Math.round(1000 + random() * (within - 1000));
  return expiresAt - before - now;
}

/** Whether a spare stream token expiring at `expiresAt` may still open a connection at `now`. */
export function isSpareTokenUsable(expiresAt: number, now: number): boolean {
  return expiresAt - now > RING_CONNECTION.spareTokenUsableMs;
}

/**
 * The wait before reconnection attempt `attempt` (0: the first after the connection dropped or
 * was refused; reset once the Ring is joined again), drawn at random in a window that doubles
 * from 1–2 s up to 1–5 s. The first one is short, half a second to a second. The draw matters
 * when an instance stops: its clients all lose their connection at the same instant, and a
 * backoff without jitter at its ceiling (socket.io's settles on exactly 5 s) brings them back
 * together, every 5 s, onto whichever instance answers.
 */
export function reconnectDelayMs(attempt: number, random: () => number = Math.random): number {
  const { reconnectMinMs: min, reconnectMaxMs: max } = RING_CONNECTION;
  const n = Number.isFinite(attempt) && attempt > 0 ? Math.floor(attempt) : 0;
  if (n === 0) return Math.round(min / 2 + (random() * min) / 2);
  const upper = Math.min(max, min * 2 ** Math.min(n, 16));
  return Math.round(min + random() * (upper - min));
}
