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

/**
 * The Ring's realtime connection (spec 2 §9): unlimited reconnection with 1 s to 5 s delays, a 20 s
 * connection timeout, a fresh stream token for every (re)connection, and join_ring retried every
 * second until the server acknowledges it.
 */
export function connectToRing(ringId: string, onStatus: (status: ConnectionStatus) => void): RingSocket {
  const socket: RingSocket = io({
    path: '/socket.io',
    transports: ['websocket', 'polling'],
    reconnection: true,
    reconnectionAttempts: Infinity,
    reconnectionDelay: 1000,
    reconnectionDelayMax: 5000,
    timeout: 20_000,
    auth: (callback) => {
      mintStreamToken().then(
        (token) => callback({ token }),
        () => callback({}),
      );
    },
  });

  let joinTimer: ReturnType<typeof setTimeout> | undefined;
  const join = () => {
    clearTimeout(joinTimer);
    socket.timeout(JOIN_RETRY_MS).emit('join_ring', { ringId }, (error, result) => {
      if (!error && result?.ok) {
        onStatus('connected');
        return;
      }
      if (socket.connected) joinTimer = setTimeout(join, JOIN_RETRY_MS);
    });
  };

  onStatus('connecting');
  socket.on('connect', join);
  socket.on('disconnect', () => {
    clearTimeout(joinTimer);
    onStatus('disconnected');
  });
  socket.on('connect_error', (error) => {
    onStatus('connecting');
    logToServer('warning', 'realtime', 'Connexion temps réel refusée', { error: error.message });
  });
  const close = socket.close.bind(socket);
  socket.close = () => {
    clearTimeout(joinTimer);
    return close();
  };
  return socket;
}
