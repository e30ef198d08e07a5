import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { io } from 'socket.io-client';
import { adminLogin, saveSettings } from '../support/api';
import { runServerToExit, startServer, type StartOptions } from '../support/server';

async function readSetting(url: string, category: string, key: string): Promise<string> {
  const res = await fetch(`${url}/api/settings.php?category=${category}`);
  const body = (await res.json()) as { data: Record<string, Record<string, { setting_value: string }>> };
  return body.data[category]![key]!.setting_value;
}

/** Start, sign the admin in, change a setting, restart on the same data, read it back. */
/** Resolves with what the first server printed. */
async function settingsSurviveRestart(options: StartOptions, keepData: boolean): Promise<string> {
  const first = await startServer(options);
  const health = await fetch(`${first.url}/healthz`);
  expect(health.status).toBe(200);
  expect(await health.json()).toEqual({ status: 'ok' });
  const token = await adminLogin(first.url);
  await saveSettings(first.url, token, 'general', { tagline: 'Persisté' });
  await first.stop({ keepData: true });
  expect(first.exitCode()).toBe(0);

  const second = await startServer({ ...options, dataDir: first.dataDir });
  try {
    expect(await readSetting(second.url, 'general', 'tagline')).toBe('Persisté');
    // The seeded admin is not duplicated and still signs in with the same password.
    await adminLogin(second.url);
  } finally {
    await second.stop({ keepData });
  }
  return first.output();
}

describe('[OPS] operator contract of the built server', () => {
  it('[OPS] serves /healthz, signs the admin in and keeps settings across a restart (SQLite)', async () => {
    await settingsSurviveRestart({}, false);
  });

  it.runIf(Boolean(process.env.TEST_DATABASE_URL))(
    '[OPS] does the same on PostgreSQL with DATABASE_URL',
    async () => {
      const base = new URL(process.env.TEST_DATABASE_URL!);
      const dbName = `e2e_ops_${Date.now()}`;
      const admin = new pg.Client({ connectionString: base.toString() });
      await admin.connect();
      await admin.query(`create database ${dbName}`);
      const url = new URL(base.toString());
      url.pathname = `/${dbName}`;
      try {
        const output = await settingsSurviveRestart({ env: { DATABASE_URL: url.toString() } }, false);
        // Without autovacuum the planner's statistics go stale: the instance says so at start.
        const { autovacuum } = (await admin.query<{ autovacuum: string }>('show autovacuum')).rows[0]!;
        expect(output.includes('PostgreSQL : autovacuum est désactivé')).toBe(autovacuum !== 'on');
      } finally {
        await admin.query(`drop database if exists ${dbName} with (force)`);
        await admin.end();
      }
    },
  );

  it('[OPS] prints a generated admin password once when ADMIN_PASSWORD is absent', async () => {
    const server = await startServer({ env: { ADMIN_PASSWORD: '' } });
    try {
      const match = /Mot de passe \(affiché une seule fois\) : (\S+)/.exec(server.output());
      expect(match).not.toBeNull();
      const res = await fetch(`${server.url}/api/admin/auth/login.php`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: match![1] }),
      });
      expect(((await res.json()) as { success: boolean }).success).toBe(true);
    } finally {
      await server.stop();
    }
  });

  it('[OPS] shuts down cleanly on SIGTERM with a socket.io client connected', async () => {
    const server = await startServer();
    const socket = io(server.url, { path: '/socket.io', transports: ['polling'], reconnection: false });
    // Refused (no token) but the polling connection is open while we stop.
    await new Promise((resolve) => socket.once('connect_error', resolve));
    const started = Date.now();
    await server.stop();
    socket.close();
    expect(server.exitCode()).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  describe('[OPS] the data directory (issue 23)', () => {
    const scratch: string[] = [];
    const newScratch = () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'securering-datadir-'));
      scratch.push(dir);
      return dir;
    };
    afterAll(() => {
      for (const dir of scratch.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
    });

    /** The one line an expected refusal prints: no stack trace, exit code 1. */
    function expectOneLineRefusal(run: { code: number | null; stderr: string }, dir: string, reason: RegExp) {
      expect(run.code).toBe(1);
      const lines = run.stderr.trim().split('\n');
      expect(lines, run.stderr).toHaveLength(1);
      expect(lines[0]).toContain(
        `Échec du démarrage : Dossier de données inutilisable (DATA_DIR) : ${dir} — `,
      );
      expect(lines[0]).toMatch(reason);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }

    it('[OPS] starts on a DATA_DIR that does not exist yet (nested), made owner-only', async () => {
      const base = newScratch();
      const dataDir = path.join(base, 'srv', 'securering');
      const server = await startServer({ dataDir });
      try {
        expect((await fetch(`${server.url}/`)).status).toBe(200);
        expect((await fetch(`${server.url}/api/settings.php`)).status).toBe(200);
        for (const dir of [path.join(base, 'srv'), dataDir])
          expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
        expect(fs.existsSync(path.join(dataDir, 'securering.sqlite'))).toBe(true);
      } finally {
        await server.stop();
      }
      expect(server.exitCode()).toBe(0);
    });

    it('[OPS] refuses a file in the place of DATA_DIR with one French line and exit code 1', async () => {
      const file = path.join(newScratch(), 'data');
      fs.writeFileSync(file, 'pas un dossier');
      const run = await runServerToExit({ dataDir: file });
      expectOneLineRefusal(run, file, /un fichier existe à sa place, pas un dossier\.$/);
      expect(fs.readFileSync(file, 'utf8')).toBe('pas un dossier');
    });

    it('[OPS] refuses a DATA_DIR it may not create or write, as an unprivileged user', async () => {
      // Root ignores permission bits: run the server as « nobody » then; else as ourselves.
      const asRoot = process.getuid?.() === 0;
      const user = asRoot ? { uid: 65534, gid: 65534 } : {};
      const parent = newScratch();
      const existing = path.join(parent, 'existing');
      fs.mkdirSync(existing);
      // Readable and traversable by anyone, writable by nobody but root.
      fs.chmodSync(parent, 0o555);
      fs.chmodSync(existing, 0o555);
      try {
        const absent = path.join(parent, 'data');
        expectOneLineRefusal(
          await runServerToExit({ dataDir: absent, ...user }),
          absent,
          /création impossible, permission refusée\.$/,
        );
        expect(fs.existsSync(absent)).toBe(false);
        expectOneLineRefusal(
          await runServerToExit({ dataDir: existing, ...user }),
          existing,
          /écriture impossible, permission refusée\.$/,
        );
        expect(fs.readdirSync(existing)).toEqual([]);
      } finally {
        fs.chmodSync(parent, 0o700);
        fs.chmodSync(existing, 0o700);
      }
    });
  });
});
