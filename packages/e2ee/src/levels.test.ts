import { describe, expect, it } from 'vitest';
import {
  DEFAULT_KDF_ITERATIONS,
  HIGH_KDF_ITERATIONS,
  LEVEL_PARAMETERS,
  SECURITY_LEVELS,
  isSecurityLevel,
  shouldRotateEpoch,
} from './levels';

describe('security levels', () => {
  it('map the spec levels to key sizes, layers, rotation and KDF cost', () => {
    expect(SECURITY_LEVELS).toEqual(['basic', 'standard', 'high', 'military']);
    expect(LEVEL_PARAMETERS.basic).toMatchObject({
      keyBytes: 16,
      doubleLayer: false,
      rotateAfterMessages: 1000,
    });
    expect(LEVEL_PARAMETERS.standard).toMatchObject({
      keyBytes: 32,
      doubleLayer: false,
      rotateAfterMessages: 1000,
    });
    expect(LEVEL_PARAMETERS.high).toMatchObject({
      keyBytes: 32,
      doubleLayer: false,
      rotateAfterMessages: 100,
    });
    expect(LEVEL_PARAMETERS.military).toMatchObject({
      keyBytes: 32,
      doubleLayer: true,
      rotateAfterMessages: 100,
    });
    expect(LEVEL_PARAMETERS.standard.kdfIterations).toBe(DEFAULT_KDF_ITERATIONS);
    expect(LEVEL_PARAMETERS.high.kdfIterations).toBe(HIGH_KDF_ITERATIONS);
    for (const level of SECURITY_LEVELS) expect(LEVEL_PARAMETERS[level].rotateAfterMs).toBe(7 * 86_400_000);
    expect(isSecurityLevel('military')).toBe(true);
    expect(isSecurityLevel('quantum')).toBe(false);
  });

  it('rotate after the message count or the age of the epoch, whichever comes first', () => {
    const now = new Date('2026-11-24T12:00:00.000Z');
    const fresh = '2026-11-24T11:00:00.000Z';
    const weekOld = '2026-11-17T12:00:00.000Z';
    expect(shouldRotateEpoch('standard', { createdAt: fresh, messageCount: 999 }, now)).toBe(false);
    expect(shouldRotateEpoch('standard', { createdAt: fresh, messageCount: 1000 }, now)).toBe(true);
    expect(shouldRotateEpoch('high', { createdAt: fresh, messageCount: 99 }, now)).toBe(false);
    expect(shouldRotateEpoch('high', { createdAt: fresh, messageCount: 100 }, now)).toBe(true);
    expect(shouldRotateEpoch('basic', { createdAt: weekOld, messageCount: 0 }, now)).toBe(true);
    expect(shouldRotateEpoch('basic', { createdAt: 'not a date', messageCount: 0 }, now)).toBe(true);
  });
});
