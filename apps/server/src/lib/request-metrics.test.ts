import { describe, expect, it } from 'vitest';
import { RequestMetrics } from './request-metrics';

describe('RequestMetrics', () => {
  it('gives nearest-rank p50 and p95 over the recorded requests', () => {
    const metrics = new RequestMetrics(1000);
    for (let ms = 1; ms <= 100; ms++) metrics.record(ms);
    expect(metrics.percentiles()).toEqual({ p50: 50, p95: 95, samples: 100 });
  });

  it('keeps only the most recent window and ignores nonsense', () => {
    const metrics = new RequestMetrics(10);
    for (let i = 0; i < 10; i++) metrics.record(1000);
    for (let i = 0; i < 10; i++) metrics.record(2);
    metrics.record(Number.NaN);
    metrics.record(-5);
    expect(metrics.percentiles()).toEqual({ p50: 2, p95: 2, samples: 10 });
    expect(new RequestMetrics().percentiles()).toEqual({ p50: 0, p95: 0, samples: 0 });
  });
});
