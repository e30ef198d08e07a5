import type { ProtectionLevel } from '@securering/contract';

/** Cross-tab announcement of a Ring's protection and ephemeral settings (spec 2 §4). */
export interface ProtectionUpdated {
  type: 'protection_updated';
  ringId: string;
  level: ProtectionLevel;
  ephemeral: boolean;
}

const CHANNEL = 'securering-ring';

export function announceProtection(message: Omit<ProtectionUpdated, 'type'>): void {
  if (typeof BroadcastChannel === 'undefined') return;
  const channel = new BroadcastChannel(CHANNEL);
  channel.postMessage({ type: 'protection_updated', ...message } satisfies ProtectionUpdated);
  channel.close();
}

/** Calls back on every announcement from another tab; returns the unsubscribe function. */
export function onProtectionUpdated(callback: (message: ProtectionUpdated) => void): () => void {
  if (typeof BroadcastChannel === 'undefined') return () => undefined;
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (event: MessageEvent) => {
    const data = event.data as Partial<ProtectionUpdated> | null;
    if (
      data?.type === 'protection_updated' &&
      typeof data.ringId === 'string' &&
      typeof data.level === 'string'
    ) {
      callback(data as ProtectionUpdated);
    }
  };
  return () => channel.close();
}
