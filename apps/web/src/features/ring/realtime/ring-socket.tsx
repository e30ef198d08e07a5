import type { ServerToClientEvents, TRealtimeMode } from '@securering/contract';
import { createContext, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { connectToRing, type ConnectionStatus, type RingSocket } from '@/lib/realtime';
import { JoinCatchUpHub } from './join-catch-up';

/** The room's one realtime connection, as `useRingSocket()` returns it. */
export interface RingSocketValue {
  ringId: string;
  /** The socket.io client; null only before the first render's effect ran. */
  socket: RingSocket | null;
  status: ConnectionStatus;
  /**
   * How many times the server acknowledged join_ring on this page (0 before the first join). It
   * changes after every reconnection: effects that must catch up on missed events (messages, key
   * state) depend on it.
   */
  joins: number;
  /** Where features register the conversations each join_ring catches up (the chat). */
  joinCatchUp: JoinCatchUpHub;
  /**
   * `polling` while the server cannot reach the other instances (Redis down): pushes from them do
   * not arrive (the page polls meanwhile) and who is online is unknown.
   */
  realtimeMode: TRealtimeMode['mode'];
}

const RingSocketContext = createContext<RingSocketValue | null>(null);

/**
 * Opens the Ring's socket once for the room page (CONVENTIONS: one socket per page, not one per
 * hook) and closes it when the room unmounts. Every feature of the room (live settings and
 * presence, keys, chat, files, calls) listens through `useRingEvent` and emits through
 * `useRingSocket().socket`.
 */
export function RingSocketProvider({ ringId, children }: { ringId: string; children: ReactNode }) {
  const [socket, setSocket] = useState<RingSocket | null>(null);
  const [status, setStatus] = useState<ConnectionStatus>('connecting');
  const [joins, setJoins] = useState(0);
  const [realtimeMode, setRealtimeMode] = useState<TRealtimeMode['mode']>('live');
  const [joinCatchUp] = useState(() => new JoinCatchUpHub());

  useEffect(() => {
    const created = connectToRing(ringId, {
      onStatus: (next) => {
        if (next !== 'connected') joinCatchUp.left();
        setStatus(next);
      },
      joinRequest: () => joinCatchUp.request(),
      onJoined: (answer, asked) => {
        joinCatchUp.answered(answer, asked);
        setJoins((n) => n + 1);
      },
      onMode: setRealtimeMode,
    });
    // The socket exists only inside this effect's lifetime; the state hands it to the children.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    setSocket(created);
    return () => {
      created.removeAllListeners();
      created.close();
      setSocket(null);
    };
  }, [ringId, joinCatchUp]);

  const value = useMemo(
    () => ({ ringId, socket, status, joins, joinCatchUp, realtimeMode }),
    [ringId, socket, status, joins, joinCatchUp, realtimeMode],
  );
  return <RingSocketContext.Provider value={value}>{children}</RingSocketContext.Provider>;
}

/** The room's socket, its status and join count; throws outside RingSocketProvider. */
export function useRingSocket(): RingSocketValue {
  const value = useContext(RingSocketContext);
  if (!value) throw new Error('useRingSocket doit être utilisé dans RingSocketProvider');
  return value;
}

/**
 * Calls `handler` for every `event` the server sends on the room's socket, for the Ring of this
 * page only (events naming another `ringId` are dropped). The latest handler is always used, so it
 * need not be memoised; the subscription lasts as long as the component.
 */
export function useRingEvent<E extends keyof ServerToClientEvents>(
  event: E,
  handler: ServerToClientEvents[E],
): void {
  const { socket, ringId } = useRingSocket();
  const latest = useRef(handler);
  useEffect(() => {
    latest.current = handler;
  });
  useEffect(() => {
    if (!socket) return;
    const listener = (payload: Parameters<ServerToClientEvents[E]>[0]) => {
      const claimed = (payload as { ringId?: unknown } | null)?.ringId;
      if (claimed !== undefined && claimed !== ringId) return;
      (latest.current as (p: typeof payload) => void)(payload);
    };
    const on = socket.on.bind(socket) as (name: string, fn: (payload: never) => void) => void;
    const off = socket.off.bind(socket) as (name: string, fn: (payload: never) => void) => void;
    on(event, listener as (payload: never) => void);
    return () => off(event, listener as (payload: never) => void);
  }, [socket, ringId, event]);
}
