import { describe, expect, it } from 'vitest';
import { loadConfig } from './config';

describe('cluster settings of the configuration', () => {
  it('reads the instance name, PostgreSQL pool size, drain time and socket buffer limit, with defaults', () => {
    const defaults = loadConfig({}).cluster;
    expect(defaults).toMatchObject({
      pgPoolSize: 10,
      pgStatementTimeoutMs: 4000,
      shutdownDrainMs: 0,
      socketBufferLimitBytes: 4096 * 1024,
    });
    expect(defaults.instanceName.length).toBeGreaterThan(0);
    expect(
      loadConfig({
        INSTANCE_NAME: 'web 2/é',
        PG_POOL_SIZE: '25',
        PG_STATEMENT_TIMEOUT_MS: '0',
        SHUTDOWN_DRAIN_MS: '3000',
        SOCKET_BUFFER_LIMIT_KB: '512',
      }).cluster,
    ).toEqual({
      instanceName: 'web_2__',
      pgPoolSize: 25,
      pgStatementTimeoutMs: 0,
      shutdownDrainMs: 3000,
      socketBufferLimitBytes: 512 * 1024,
    });
  });

  it('refuses values that are not non-negative integers, naming the variable', () => {
    expect(() => loadConfig({ PG_POOL_SIZE: 'beaucoup' })).toThrow(/PG_POOL_SIZE/);
    expect(() => loadConfig({ SHUTDOWN_DRAIN_MS: '-1' })).toThrow(/SHUTDOWN_DRAIN_MS/);
  });
});
