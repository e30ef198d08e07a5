/**
 * Where this process stands between start and exit. Draining starts on SIGTERM: /readyz answers
 * 503 so the load balancer sends nothing new, sockets are then told to reconnect elsewhere, and
 * features that would announce a member offline leave it to the instances that stay (presence).
 */
export class Lifecycle {
  private drainingSince: number | undefined;

  get draining(): boolean {
    return this.drainingSince !== undefined;
  }

  /** The step a shutdown is at (said by the forced-exit log when a step hangs). */
  shutdownPhase = 'running';

  startDraining(now = Date.now()): void {
    this.drainingSince ??= now;
    this.shutdownPhase = 'draining';
  }
}
