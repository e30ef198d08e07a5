import {
  MAX_JOIN_CATCH_UP,
  REALTIME_POLL_MS,
  RING_CONNECTION,
  ZMintStreamTokenResponse,
  isSpareTokenUsable,
  reconnectDelayMs,
  spareTokenRenewalDelayMs,
  type ClientToServerEvents,
  type ServerToClientEvents,
  type TJoinRing,
  type TJoinRingAck,
  type TRealtimeMode,
} from '@securering/contract';
import { io, type Socket } from 'socket.io-client';
import { apiRequest } from './api-client';
import { catchUpChecks } from './catch-up-checks';
import { logToServer } from './client-log';

export type RingSocket = Socket<ServerToClientEvents, ClientToServerEvents>;
export type ConnectionStatus = 'connecting' | 'connected' | 'disconnected';

/**
 * A stream token for one (re)connection, asked again every 1.5 s until the server gives one. The
 * first failure is reported to the server log, not each retry: when an instance is overloaded or
 * restarting, a report from every page on every retry would add to its load.
 */
async function mintStreamToken(): Promise<string> {
  for (let failures = 0; ; failures++) {
    try {
      return (
        await apiRequest('/api/rings/mint-stream-token.php', {
          method: 'POST',
          auth: 'ring',
          schema: ZMintStreamTokenResponse,
        })
      ).stream_token;
    } catch (error) {
      // A 401 means the Ring session is over: stop and let the session provider react.
      if ((error as { status?: number }).status === 401) throw error;
      if (failures === 0)
        logToServer('warning', 'realtime', 'Jeton de flux indisponible, nouvel essai', {
          error: (error as Error).message,
        });
      await new Promise((resolve) => setTimeout(resolve, RING_CONNECTION.tokenRetryMs));
    }
  }
}

/** What a Ring connection reports besides its status. */
export interface RingConnectionEvents {
  onStatus(status: ConnectionStatus): void;
  /**
   * What every join_ring asks besides the Ring: the conversations held with the highest sequence
   * number of each (`catchUp`, at most MAX_JOIN_CATCH_UP), whose missed messages its answer
   * carries, and whether it should carry the conversation list (`conversations`) and the Ring's key
   * revision (`keyRevision`).
   */
  joinRequest?(): JoinExtras;
  /**
   * The server acknowledged join_ring (the first time and after every reconnection), with its
   * answer to what was `asked`.
   */
  onJoined?(answer: TJoinRingAnswer, asked: JoinExtras): void;
  /**
   * The server's realtime mode changed: `polling` while its link to the other instances (Redis) is
   * down — this connection then checks what it missed every REALTIME_POLL_MS, and presence is
   * unknown — and `live` again after (or once disconnected).
   */
  onMode?(mode: TRealtimeMode['mode']): void;
}

/** What a join_ring asks besides the Ring. */
export type JoinExtras = Omit<TJoinRing, 'ringId'>;
/** A join_ring's successful answer. */
export type TJoinRingAnswer = Extract<TJoinRingAck, { ok: true }>;

/**
 * The Ring's realtime connection (spec 2 §9, RING_CONNECTION): unlimited reconnection with delays
 * drawn by reconnectDelayMs (0.5–1 s for the first attempt, then 1 s up to 5 s), a 20 s connection
 * timeout, a fresh stream token for every (re)connection (tokens are single-use), and join_ring
 * retried every second until the server acknowledges it, naming the conversations held so that its
 * answer carries what they missed (no HTTP request to catch up). While connected, the page holds the
 * token of its next connection (`renew_stream_token`, renewed before it expires): a reconnection
 * uses it and needs no HTTP call first; without a usable one it mints a token over HTTP.
 * Reconnection is driven here rather than by socket.io, whose backoff settles on exactly 5 s: every
 * page of an instance that stopped would then come back at the same instant. It also covers what
 * socket.io never retries (the server closed the socket, or refused the handshake), so an ended
 * Ring session shows up at once as a 401 on the next token (which ends the session in the page).
 */
export function connectToRing(
  ringId: string,
  events: RingConnectionEvents | ((status: ConnectionStatus) => void),
): RingSocket {
  const { onStatus, onJoined, joinRequest, onMode } =
    typeof events === 'function'
      ? { onStatus: events, onJoined: undefined, joinRequest: undefined, onMode: undefined }
      : events;
  /** The stream token of the next connection, taken while connected (single use). */
  let spare: { token: string; expiresAt: number } | undefined;
  const socket: RingSocket = io({
    path: '/socket.io',
    transports: ['websocket', 'polling'],
    reconnection: false,
    timeout: RING_CONNECTION.connectTimeoutMs,
    auth: (callback) => {
      const held = spare;
      spare = undefined;
      if (held && isSpareTokenUsable(held.expiresAt, Date.now())) {
        callback({ token: held.token });
        return;
      }
      mintStreamToken().then(
        (token) => callback({ token }),
        () => callback({}),
      );
    },
  });

  let closed = false;
  let joinTimer: ReturnType<typeof setTimeout> | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let renewTimer: ReturnType<typeof setTimeout> | undefined;
  /** Asks for the next connection's token when due (spareTokenRenewalDelayMs), while connected. */
  const scheduleRenewal = () => {
    clearTimeout(renewTimer);
    renewTimer = setTimeout(renew, spareTokenRenewalDelayMs(spare?.expiresAt, Date.now()));
  };
  const renew = () => {
    if (closed || !socket.connected) return;
    socket
      .timeout(RING_CONNECTION.connectTimeoutMs)
      .emit('renew_stream_token', { ringId }, (error, result) => {
        if (!error && result.ok)
          spare = { token: result.stream_token, expiresAt: Date.now() + result.expires_in * 1000 };
        if (!closed && socket.connected) scheduleRenewal();
      });
  };
  /** Attempts since the Ring was last joined, and whether a refusal among them was reported. */
  let attempts = 0;
  let refusalReported = false;
  const join = () => {
    clearTimeout(joinTimer);
    const { catchUp = [], ...also } = joinRequest?.() ?? {};
    const asked: JoinExtras = {
      ...(catchUp.length > 0 ? { catchUp: catchUp.slice(0, MAX_JOIN_CATCH_UP) } : {}),
      ...also,
    };
    socket.timeout(RING_CONNECTION.joinRetryMs).emit('join_ring', { ringId, ...asked }, (error, result) => {
      if (!error && result?.ok) {
        attempts = 0;
        refusalReported = false;
        scheduleRenewal();
        onStatus('connected');
        watchIdle();
        onJoined?.(result, asked);
        return;
      }
      if (socket.connected) joinTimer = setTimeout(join, RING_CONNECTION.joinRetryMs);
    });
  };
  /**
   * Checks the sequence numbers held (join_ring again: its answer carries what was missed) after
   * the server's `catch_up` and after IDLE_CATCH_UP_MS with nothing received (catch-up-checks.ts).
   */
  const checks = catchUpChecks({ check: join, active: () => !closed && socket.connected });
  const watchIdle = checks.activity;
  const stopChecks = checks.stop;
  socket.on('catch_up', ({ withinMs }) => checks.within(withinMs));
  /** While the server pushes only its own events (Redis down, issue 26): join_ring's catch-up, polled. */
  let pollTimer: ReturnType<typeof setInterval> | undefined;
  const stopPolling = () => {
    if (pollTimer === undefined) return;
    clearInterval(pollTimer);
    pollTimer = undefined;
    onMode?.('live');
  };
  socket.on('realtime_mode', ({ mode }) => {
    stopPolling();
    if (mode !== 'polling') return;
    onMode?.('polling');
    pollTimer = setInterval(() => {
      if (!closed && socket.connected) join();
    }, REALTIME_POLL_MS);
  });
  socket.onAny(watchIdle);

  /** The next attempt after a drop, a refusal or a failed attempt. */
  const reconnectLater = () => {
    clearTimeout(retryTimer);
    if (closed) return;
    const delay = reconnectDelayMs(attempts);
    attempts += 1;
    retryTimer = setTimeout(() => {
      if (!closed && !socket.connected) socket.connect();
    }, delay);
  };

  onStatus('connecting');
  socket.on('connect', join);
  socket.on('disconnect', () => {
    clearTimeout(joinTimer);
    clearTimeout(renewTimer);
    stopChecks();
    stopPolling();
    onStatus('disconnected');
    reconnectLater();
  });
  socket.on('connect_error', (error) => {
    onStatus('connecting');
    // Once per outage (the first refusal since the Ring was joined), not on every attempt.
    if (!refusalReported)
      logToServer('warning', 'realtime', 'Connexion temps réel refusée', { error: error.message });
    refusalReported = true;
    reconnectLater();
  });
  const close = socket.close.bind(socket);
  socket.close = () => {
    closed = true;
    spare = undefined;
    clearTimeout(joinTimer);
    clearTimeout(retryTimer);
    clearTimeout(renewTimer);
    stopChecks();
    stopPolling();
    return close();
  };
  return socket;
}
