/**
 * Response times of the most recent requests of this process, for the console's p50/p95.
 * A fixed-size ring buffer: constant memory, no per-request allocation beyond a number.
 */
export class RequestMetrics {
  private readonly samples: Float64Array;
  private next = 0;
  private count = 0;
  readonly startedAt = Date.now();

  constructor(capacity = 2000) {
    this.samples = new Float64Array(capacity);
  }

  record(durationMs: number): void {
    if (!Number.isFinite(durationMs) || durationMs < 0) return;
    this.samples[this.next] = durationMs;
    this.next = (this.next + 1) % this.samples.length;
    this.count = Math.min(this.count + 1, this.samples.length);
  }

  /** Nearest-rank percentiles over the recorded window, in ms with one decimal. */
  percentiles(): { p50: number; p95: number; samples: number } {
    if (this.count === 0) return { p50: 0, p95: 0, samples: 0 };
    const sorted = Array.from(this.samples.subarray(0, this.count)).sort((a, b) => a - b);
    const at = (p: number) =>
      sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
    return { p50: Math.round(at(50) * 10) / 10, p95: Math.round(at(95) * 10) / 10, samples: this.count };
  }
}
