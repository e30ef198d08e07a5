import type { ServerToClientEvents } from '@securering/contract';
import type { TypedServer } from './realtime-server';

export const ringRoom = (ringId: string) => `ring:${ringId}`;
export const memberRoom = (memberId: string) => `member:${memberId}`;

type EventArgs<E extends keyof ServerToClientEvents> = Parameters<ServerToClientEvents[E]>;

/**
 * What services use to push events. Emits go through the socket.io adapter, so with Redis they
 * reach sockets connected to any instance. Without an attached server (some tests) emits are no-ops.
 */
export class RealtimeHub {
  private io: TypedServer | undefined;

  attach(io: TypedServer): void {
    this.io = io;
  }

  detach(): void {
    this.io = undefined;
  }

  get server(): TypedServer | undefined {
    return this.io;
  }

  emitToRing<E extends keyof ServerToClientEvents>(ringId: string, event: E, ...args: EventArgs<E>): void {
    this.io?.to(ringRoom(ringId)).emit(event, ...args);
  }

  emitToMember<E extends keyof ServerToClientEvents>(
    memberId: string,
    event: E,
    ...args: EventArgs<E>
  ): void {
    this.io?.to(memberRoom(memberId)).emit(event, ...args);
  }

  /** Members with a socket in the Ring's room, on any instance (the adapter asks the others). */
  async onlineMemberIds(ringId: string): Promise<Set<string>> {
    if (!this.io) return new Set();
    const sockets = await this.io.in(ringRoom(ringId)).fetchSockets();
    return new Set(sockets.map((s) => s.data.memberId));
  }

  /** Whether a member still has a socket anywhere. */
  async isMemberConnected(memberId: string): Promise<boolean> {
    if (!this.io) return false;
    return (await this.io.in(memberRoom(memberId)).fetchSockets()).length > 0;
  }

  /** Closes every socket of a member (removed, deactivated, logged out). */
  disconnectMember(memberId: string): void {
    this.io?.in(memberRoom(memberId)).disconnectSockets(true);
  }
}
