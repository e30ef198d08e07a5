import { useEffect, useRef, useState } from 'react';
import type { ConnectionStatus } from '@/lib/realtime';
import { useSettings } from '@/lib/site-settings';
import { nextPollDelay, pollingAllowed, realtimePolicy } from './chat-policy';

/** How the room receives messages right now, for the status dots. */
export interface RealtimeMode {
  status: ConnectionStatus;
  /** The realtime settings allow polling when the socket is down. */
  pollingAllowed: boolean;
  /** Polling is running (socket down past the grace delay, polling allowed). */
  polling: boolean;
  /** When the next poll runs (ms since epoch), while polling. */
  nextPollAt: number | null;
}

/**
 * The fallback of spec 2 §4: when the socket is not connected, and the public realtime settings
 * say the websocket is not required and polling is enabled, `tick` runs after the grace delay, then
 * again after the initial delay, growing by the backoff factor up to the max while nothing arrives,
 * and back to the initial delay when something does (`tick` resolves true). It stops as soon as the
 * socket is connected again (the join then catches up by itself).
 */
export function useRealtimeFallback(status: ConnectionStatus, tick: () => Promise<boolean>): RealtimeMode {
  const settings = useSettings('realtime');
  const policy = realtimePolicy(settings.data);
  const allowed = pollingAllowed(policy);
  const [nextPollAt, setNextPollAt] = useState<number | null>(null);
  const latestTick = useRef(tick);
  useEffect(() => {
    latestTick.current = tick;
  });

  const down = status !== 'connected';
  const { initialMs, maxMs, factor, graceMs } = policy;
  useEffect(() => {
    if (!allowed || !down) return;
    const rules = { ...policy, initialMs, maxMs, factor, graceMs };
    let delay: number | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const schedule = (ms: number) => {
      if (stopped) return;
      delay = ms;
      setNextPollAt(Date.now() + ms);
      timer = setTimeout(run, ms);
    };
    const run = () => {
      void latestTick
        .current()
        .catch(() => false)
        .then((got) => schedule(nextPollDelay(rules, delay, got)));
    };
    // After the grace delay: one catch-up at once (what was missed while the socket dropped), then
    // the growing delays.
    timer = setTimeout(run, graceMs);
    return () => {
      stopped = true;
      clearTimeout(timer);
      setNextPollAt(null);
    };
    // `policy` is rebuilt each render; its numbers are the dependencies.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [allowed, down, initialMs, maxMs, factor, graceMs]);

  return { status, pollingAllowed: allowed, polling: allowed && down && nextPollAt !== null, nextPollAt };
}
