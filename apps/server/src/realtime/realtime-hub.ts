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
}
