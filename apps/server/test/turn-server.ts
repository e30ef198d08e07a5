import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { stunBinding } from './turn-client';

/**
 * Starts and stops a real coturn (`turnserver`, Debian package `coturn`) for tests: loopback only,
 * REST API credentials (`use-auth-secret` with a random `static-auth-secret`), no TLS/DTLS, no CLI,
 * a temporary log, pid and user-database file. Server tests prove the credentials the API hands out
 * are accepted; browser tests use it for a relay-only call (hence `allow-loopback-peers`, test only).
 */

export const TURNSERVER_BIN = process.env.TURNSERVER_BIN ?? '/usr/bin/turnserver';

/** Whether coturn is installed (CI installs it; see .ci/run). */
export function isTurnServerAvailable(): boolean {
  try {
    fs.accessSync(TURNSERVER_BIN, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface RunningTurnServer {
  host: string;
  port: number;
  /** The URL for TURN_URLS, e.g. `turn:127.0.0.1:34780`. */
  url: string;
  secret: string;
  realm: string;
  /** The log file's content so far. */
  log(): string;
  /** SIGTERM (SIGKILL after 5 s), then removes the temporary folder. */
  stop(): Promise<void>;
}

export interface StartTurnOptions {
  secret?: string;
  realm?: string;
  /** Relay to peers on 127.x (browser tests on one machine). Default true; never in production. */
  allowLoopbackPeers?: boolean;
}

function canBind(port: number, kind: 'tcp' | 'udp'): Promise<boolean> {
  return new Promise((resolve) => {
    if (kind === 'udp') {
      const socket = dgram.createSocket('udp4');
      socket.once('error', () => {
        socket.close();
        resolve(false);
      });
      socket.bind(port, '127.0.0.1', () => socket.close(() => resolve(true)));
      return;
    }
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port free for both TCP and UDP on 127.0.0.1 (coturn listens on both). */
async function freeTurnPort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = randomInt(20_000, 30_000);
    if ((await canBind(port, 'tcp')) && (await canBind(port, 'udp'))) return port;
  }
  throw new Error('no free port for turnserver');
}

export async function startTurnServer(options: StartTurnOptions = {}): Promise<RunningTurnServer> {
  if (!isTurnServerAvailable()) throw new Error(`${TURNSERVER_BIN} not found: install the coturn package`);
  const host = '127.0.0.1';
  const secret = options.secret ?? randomBytes(24).toString('hex');
  const realm = options.realm ?? 'securering.test';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'securering-turn-'));
  const logFile = path.join(dir, 'turn.log');
  const port = await freeTurnPort();
  // A relay range of its own, away from the listening ports and the usual ephemeral range.
  const minPort = randomInt(0, 40) * 100 + 61_000;
  const args = [
    '-n',
    `--listening-ip=${host}`,
    `--relay-ip=${host}`,
    `--listening-port=${port}`,
    `--min-port=${minPort}`,
    `--max-port=${minPort + 99}`,
    '--use-auth-secret',
    `--static-auth-secret=${secret}`,
    `--realm=${realm}`,
    '--no-tls',
    '--no-dtls',
    '--no-cli',
    '--no-rfc5780',
    '--no-stdout-log',
    '--simple-log',
    `--log-file=${logFile}`,
    `--pidfile=${path.join(dir, 'turn.pid')}`,
    `--userdb=${path.join(dir, 'turndb')}`,
    ...(options.allowLoopbackPeers === false ? [] : ['--allow-loopback-peers']),
  ];
  let output = '';
  const child: ChildProcess = spawn(TURNSERVER_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const readLog = () => {
    try {
      return fs.readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 15_000;
  while (!(await stunBinding(host, port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      const log = readLog();
      await stop();
      throw new Error(`turnserver did not start:\n${output}\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  return { host, port, url: `turn:${host}:${port}`, secret, realm, log: readLog, stop };
}
