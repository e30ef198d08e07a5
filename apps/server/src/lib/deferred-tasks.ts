import type { FastifyBaseLogger, FastifyReply } from 'fastify';

/**
 * Work that runs in this process after a request has answered. A request whose duration must not
 * reveal what it found (forgot password, resend verification: does the account exist?) only
 * schedules its work here and answers at once, so both cases cost the request the same. Failures
 * are logged, never thrown; shutdown waits for the tasks still running.
 */
export class DeferredTasks {
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly logger: FastifyBaseLogger) {}

  /** Starts `task` once `reply` has been sent (or its connection closed), never before. */
  afterResponse(reply: FastifyReply, name: string, task: () => Promise<unknown>): void {
    const response = reply.raw;
    if (response.writableFinished || response.destroyed) {
      this.run(name, task);
      return;
    }
    let started = false;
    const start = () => {
      if (started) return;
      started = true;
      this.run(name, task);
    };
    response.once('finish', start);
    response.once('close', start);
  }

  /** Starts `task` on a later turn of the event loop, never within the caller's. */
  run(name: string, task: () => Promise<unknown>): void {
    const done = new Promise<void>((resolve) => setImmediate(resolve)).then(task).then(
      () => undefined,
      (error: unknown) => this.logger.error({ err: error, task: name }, 'deferred task failed'),
    );
    this.running.add(done);
    void done.finally(() => this.running.delete(done));
  }

  /** Resolves when every task started so far, and any task those started, has finished. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}
