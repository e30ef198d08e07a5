import type { FastifyBaseLogger } from 'fastify';

export interface Job {
  name: string;
  intervalMs: number;
  run(): Promise<unknown>;
}

/**
 * Runs each job on its interval, never overlapping itself. Jobs must be safe to run on several
 * instances at once (they claim work with conditional updates).
 */
export class Scheduler {
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(
    private readonly logger: FastifyBaseLogger,
    /** Told how each run ended (the instance's metrics). */
    private readonly onRun?: (job: string, outcome: 'ok' | 'failed') => void,
  ) {}

  start(jobs: Job[]): void {
    for (const job of jobs) {
      const timer = setInterval(() => void this.runOnce(job), job.intervalMs);
      timer.unref();
      this.timers.push(timer);
    }
  }

  async runOnce(job: Job): Promise<void> {
    if (this.running.has(job.name)) return;
    const run = job.run().then(
      () => this.onRun?.(job.name, 'ok'),
      (error: unknown) => {
        this.onRun?.(job.name, 'failed');
        this.logger.error({ err: error, job: job.name }, 'job failed');
      },
    );
    this.running.set(job.name, run);
    try {
      await run;
    } finally {
      this.running.delete(job.name);
    }
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers.length = 0;
    await Promise.all(this.running.values());
  }
}
