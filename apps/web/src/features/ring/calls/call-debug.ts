/**
 * Test and debug knobs of calls, read from this browser's local storage (the call popup shares it
 * with the room that opened it). None of them weakens a call for anyone else: relay-only hides
 * this browser's addresses, a corrupted signature makes the peer refuse this side's calls, and the
 * exposed objects are this page's own.
 *
 * - `securering.debug.callRelay` = "1": `iceTransportPolicy: 'relay'` (proves the TURN path).
 * - `securering.debug.callTamperSignature` = "1": flips a bit of every SDP signature sent.
 * - `securering.debug.callExpose` = "1": the call's RTCPeerConnection and streams on
 *   `window.__secureringCall` (stats in browser tests).
 */
export interface CallDebugKnobs {
  relayOnly: boolean;
  tamperSignature: boolean;
  expose: boolean;
}

export const CALL_DEBUG_KEYS = {
  relayOnly: 'securering.debug.callRelay',
  tamperSignature: 'securering.debug.callTamperSignature',
  expose: 'securering.debug.callExpose',
} as const;

/** The knobs as set in `storage` (all off when storage is unavailable). */
export function readCallDebugKnobs(storage: Pick<Storage, 'getItem'> | null): CallDebugKnobs {
  const on = (key: string) => {
    try {
      return storage?.getItem(key) === '1';
    } catch {
      return false;
    }
  };
  return {
    relayOnly: on(CALL_DEBUG_KEYS.relayOnly),
    tamperSignature: on(CALL_DEBUG_KEYS.tamperSignature),
    expose: on(CALL_DEBUG_KEYS.expose),
  };
}

/** What `window.__secureringCall` holds when exposed. */
export interface ExposedCall {
  pc: RTCPeerConnection | null;
  localStream: MediaStream | null;
  remoteStream: MediaStream | null;
}

export function exposeCall(call: ExposedCall): void {
  (window as unknown as { __secureringCall?: ExposedCall }).__secureringCall = call;
}
