import { describe, expect, it } from 'vitest';
import { SERVICE_RETRIES, serviceRetryDelayMs } from './service-retry';

describe('serviceRetryDelayMs', () => {
  it('retries a 503 with Retry-After, waiting longer each time, at most 8 s', () => {
    expect(serviceRetryDelayMs(503, '5', 0, 0)).toBe(5000);
    expect(serviceRetryDelayMs(503, '5', 1, 0)).toBe(8000);
    expect(serviceRetryDelayMs(503, '1', 0, 0)).toBe(1000);
    expect(serviceRetryDelayMs(503, '1', 1, 0)).toBe(2000);
    expect(serviceRetryDelayMs(503, '1', 2, 0)).toBe(4000);
    expect(serviceRetryDelayMs(503, 'soon', 0, 0)).toBe(1000);
  });

  it('spreads the delays by up to a quarter', () => {
    expect(serviceRetryDelayMs(503, '2', 0, 0.99)).toBe(2495);
  });

  it('does not retry other answers, a 503 without Retry-After, or past its retries', () => {
    expect(serviceRetryDelayMs(500, '5', 0, 0)).toBeUndefined();
    expect(serviceRetryDelayMs(429, '5', 0, 0)).toBeUndefined();
    expect(serviceRetryDelayMs(503, null, 0, 0)).toBeUndefined();
    expect(serviceRetryDelayMs(503, '5', SERVICE_RETRIES, 0)).toBeUndefined();
  });
});
