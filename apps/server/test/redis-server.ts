import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { freePort } from '../../../scripts/lib/free-port.mjs';

/** Where Debian puts redis-server; REDIS_SERVER_BIN overrides it. */
export const REDIS_SERVER_BIN = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

/** Whether this machine can start a Redis of its own for a test (outage tests skip otherwise). */
export const canStartRedis = fs.existsSync(REDIS_SERVER_BIN);

/**
 * A Redis server of the test's own, on a free port, that the test may kill and start again — never
 * the machine's shared one. No persistence: a restart comes back empty, as after a Redis crash.
 */
export interface OwnRedis {
  url: string;
  port: number;
  /** SIGKILL: connections drop at once, as when Redis crashes. */
  kill(): Promise<void>;
  /** Starts it again on the same port (nothing when it runs). */
  start(): Promise<void>;
  /** Stops it for good (afterAll). */
  stop(): Promise<void>;
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    // Already running: a second server could not bind the port, and losing track of the first
    // would leave it running after the test.
    if (child && child.exitCode === null && child.signalCode === null) return;
    child = spawn(
      REDIS_SERVER_BIN,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    const deadline = Date.now() + 5000;
    while (!(await portAnswers(port))) {
      if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, kill, start, stop: kill };
}
