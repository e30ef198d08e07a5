import {
  ZMintStreamTokenResponse,
  type ClientToServerEvents,
  type ServerToClientEvents,
} from '@securering/contract';
import { io, type Socket } from 'socket.io-client';
import { apiRequest } from './api-client';
import { logToServer } from './client-log';

export type RingSocket = Socket<ServerToClientEvents, ClientToServerEvents>;
export type ConnectionStatus = 'connecting' | 'connected' | 'disconnected';

const TOKEN_RETRY_MS = 1500;
const JOIN_RETRY_MS = 1000;
const RECONNECT_MIN_MS = 1000;
const RECONNECT_MAX_MS = 5000;

async function mintStreamToken(): Promise<string> {
  for (;;) {
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
      logToServer('warning', 'realtime', 'Jeton de flux indisponible, nouvel essai', {
        error: (error as Error).message,
      });
      await new Promise((resolve) => setTimeout(resolve, TOKEN_RETRY_MS));
    }
  }
}

/** What a Ring connection reports besides its status. */
export interface RingConnectionEvents {
  onStatus(status: ConnectionStatus): void;
  /** The server acknowledged join_ring (the first time and after every reconnection). */
  onJoined?(): void;
}

/**
 * The Ring's realtime connection (spec 2 §9): unlimited reconnection with 1 s to 5 s delays, a 20 s
 * connection timeout, a fresh stream token for every (re)connection (tokens are single-use), and
 * join_ring retried every second until the server acknowledges it. socket.io does not reconnect by
 * itself after the server closed the socket or refused the handshake: this does, so an ended Ring
 * session shows up at once as a 401 on the next token (which ends the session in the page).
 */
export function connectToRing(
  ringId: string,
  events: RingConnectionEvents | ((status: ConnectionStatus) => void),
): RingSocket {
  const { onStatus, onJoined } =
    typeof events === 'function' ? { onStatus: events, onJoined: undefined } : events;
  const socket: RingSocket = io({
    path: '/socket.io',
    transports: ['websocket', 'polling'],
    reconnection: true,
    reconnectionAttempts: Infinity,
    reconnectionDelay: RECONNECT_MIN_MS,
    reconnectionDelayMax: RECONNECT_MAX_MS,
    timeout: 20_000,
    auth: (callback) => {
      mintStreamToken().then(
        (token) => callback({ token }),
        () => callback({}),
      );
    },
  });

  let closed = false;
  let joinTimer: ReturnType<typeof setTimeout> | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let manualAttempts = 0;
  const join = () => {
    clearTimeout(joinTimer);
    socket.timeout(JOIN_RETRY_MS).emit('join_ring', { ringId }, (error, result) => {
      if (!error && result?.ok) {
        manualAttempts = 0;
        onStatus('connected');
        onJoined?.();
        return;
      }
      if (socket.connected) joinTimer = setTimeout(join, JOIN_RETRY_MS);
    });
  };
  /** Reconnects when socket.io gave up (server disconnect, refused handshake). */
  const reconnectLater = () => {
    clearTimeout(retryTimer);
    if (closed || socket.active) return;
    const delay = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** manualAttempts);
    manualAttempts += 1;
    retryTimer = setTimeout(() => {
      if (!closed && !socket.connected) socket.connect();
    }, delay);
  };

  onStatus('connecting');
  socket.on('connect', join);
  socket.on('disconnect', () => {
    clearTimeout(joinTimer);
    onStatus('disconnected');
    reconnectLater();
  });
  socket.on('connect_error', (error) => {
    onStatus('connecting');
    logToServer('warning', 'realtime', 'Connexion temps réel refusée', { error: error.message });
    reconnectLater();
  });
  const close = socket.close.bind(socket);
  socket.close = () => {
    closed = true;
    clearTimeout(joinTimer);
    clearTimeout(retryTimer);
    return close();
  };
  return socket;
}
