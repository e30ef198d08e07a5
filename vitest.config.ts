import { defineConfig } from 'vitest/config';

const serverIntegration = ['apps/server/test/**/*.test.ts'];
const withPostgres = Boolean(process.env.TEST_DATABASE_URL);

/**
 * Projects: pure unit tests (contract, server rules, web rules), the server's API and repository
 * suite on SQLite (always) and on PostgreSQL + Redis (when CI provides them), and browser tests.
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'contract',
          include: ['packages/contract/src/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'e2ee',
          include: ['packages/e2ee/src/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'server',
          // scripts/lib: how `npm start`, the cluster, the browser tests and the benchmarks run the server.
          include: ['apps/server/src/**/*.test.ts', 'scripts/lib/*.test.mjs', ...serverIntegration],
          environment: 'node',
          env: { TEST_DB: 'sqlite', TEST_REDIS_URL: '' },
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      ...(withPostgres
        ? [
            {
              test: {
                name: 'server-pg',
                include: serverIntegration,
                environment: 'node',
                env: { TEST_DB: 'postgres' },
                testTimeout: 30_000,
                hookTimeout: 60_000,
              },
            },
          ]
        : []),
      {
        // The app's `@/` imports (apps/web/vite.config.ts), for tests of modules that use them.
        resolve: { alias: { '@': new URL('./apps/web/src', import.meta.url).pathname } },
        test: {
          name: 'web',
          include: ['apps/web/src/**/*.test.{ts,tsx}'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/specs/**/*.e2e.ts'],
          environment: 'node',
          globalSetup: ['e2e/support/global-setup.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
