import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { fastifyTrustProxy, parseTrustProxy } from './trust-proxy';

describe('parseTrustProxy', () => {
  it('is off when unset, empty, 0 or false', () => {
    for (const value of [undefined, '', '  ', '0', 'false', 'FALSE'])
      expect(parseTrustProxy(value)).toBe(false);
  });

  it('reads a number of proxy hops, never "trust everything"', () => {
    expect(parseTrustProxy('1')).toBe(1);
    expect(parseTrustProxy(' 2 ')).toBe(2);
    // `true` used to trust the left-most X-Forwarded-For address; it now means one proxy.
    expect(parseTrustProxy('true')).toBe(1);
  });

  it('reads a list of proxy addresses, CIDR ranges and named ranges', () => {
    expect(parseTrustProxy('10.0.0.0/8, 192.168.1.7,::1,fd00::/8')).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      '::1',
      'fd00::/8',
    ]);
    expect(parseTrustProxy('loopback,uniquelocal')).toEqual(['loopback', 'uniquelocal']);
    expect(parseTrustProxy('10.0.0.1,')).toEqual(['10.0.0.1']);
  });

  it('refuses anything else with an error naming the variable', () => {
    for (const value of [
      'yes',
      '-1',
      '1.5',
      '11',
      '10.0.0.0/33',
      '10.0.0.300',
      'proxy.local',
      '10.0.0.1,abc',
      '::1/129',
      '10.0.0.0/8/1',
      ',',
    ]) {
      expect(() => parseTrustProxy(value), value).toThrow(/TRUST_PROXY/);
    }
  });

  it('stops the configuration from loading on garbage', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'oui' })).toThrow(/TRUST_PROXY/);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({}).trustProxy).toBe(false);
  });

  it('hands Fastify a function for hop counts (a bare number would trust nothing)', () => {
    const trust = fastifyTrustProxy(2);
    expect(typeof trust).toBe('function');
    const fn = trust as (address: string, hop: number) => boolean;
    expect([0, 1, 2].map((hop) => fn('10.0.0.1', hop))).toEqual([true, true, false]);
    expect(fastifyTrustProxy(['10.0.0.0/8'])).toEqual(['10.0.0.0/8']);
    expect(fastifyTrustProxy(false)).toBe(false);
  });
});
