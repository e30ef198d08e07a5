import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../scripts/lib/free-port.mjs';
import { serverArgs, serverEnv } from '../../scripts/lib/server-process.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const E2E_ADMIN = { username: 'admin', password: 'Admin-E2E-Password-1' } as const;

export interface RunningServer {
  url: string;
  port: number;
  dataDir: string;
  /** Everything the server printed, for reading outbox links. */
  output(): string;
  /** Exit code after stop (null if it had to be killed). */
  exitCode(): number | null;
  /** SIGTERM, then removes DATA_DIR unless keepData. */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

/** Server environment for specs that pay with the local test provider (off by default). */
export const PAYMENT_TEST_MODE_ENV = { PAYMENT_TEST_MODE: '1' } as const;

export interface StartOptions {
  env?: Record<string, string>;
  /** Reuse a DATA_DIR (a restart); a temporary one otherwise. */
  dataDir?: string;
}

/**
 * The built server as `npm start` runs it (with source maps on top, for TypeScript positions in the
 * tests' logs), on `port` with `dataDir`, and `env` on top.
 */
function spawnServer(options: {
  port: number;
  dataDir: string;
  env: Record<string, string>;
  uid?: number;
  gid?: number;
}): ChildProcess {
  const url = `http://127.0.0.1:${options.port}`;
  return spawn(process.execPath, serverArgs(['--enable-source-maps']), {
    cwd: ROOT,
    env: serverEnv({
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(options.port),
      HOST: '127.0.0.1',
      DATA_DIR: options.dataDir,
      PUBLIC_URL: url,
      ADMIN_USERNAME: E2E_ADMIN.username,
      ADMIN_PASSWORD: E2E_ADMIN.password,
      DATABASE_URL: '',
      REDIS_URL: '',
      LOG_LEVEL: 'info',
      // Off, as with `npm start`: specs that pay with the test provider ask for PAYMENT_TEST_MODE=1.
      PAYMENT_TEST_MODE: '',
      ...options.env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.gid ?? options.uid }),
  });
}

/**
 * Starts the built server expecting it to refuse: resolves with its exit code and what it wrote
 * on stdout and stderr once it exits (killed, and rejected, if it is still running after 30 s).
 * `uid`/`gid` run it as another user (root only).
 */
export async function runServerToExit(options: {
  dataDir: string;
  env?: Record<string, string>;
  uid?: number;
  gid?: number;
}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnServer({ port: await freePort(), env: options.env ?? {}, ...options });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  // 'close' comes after the output streams have ended, so nothing written is missed.
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/**
 * Starts the built server (`apps/server/dist/main.js`) on a free port with a temporary DATA_DIR,
 * exactly as `npm start` runs it, and waits for /healthz.
 */
export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const env = options.env ?? {};
  const port = await freePort();
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'securering-e2e-'));
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child = spawnServer({ port, dataDir, env });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Le serveur s'est arrêté au démarrage :\n${output}`);
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`Le serveur n'a pas répondu à /healthz :\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }

  return {
    url,
    port,
    dataDir,
    output: () => output,
    exitCode: () => child.exitCode,
    async stop(stopOptions = {}) {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      if (!stopOptions.keepData) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
