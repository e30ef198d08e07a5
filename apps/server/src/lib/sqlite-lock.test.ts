import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteInUseError, acquireSqliteLock } from './sqlite-lock';

describe('acquireSqliteLock', () => {
  const dirs: string[] = [];
  const file = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-lock-'));
    dirs.push(dir);
    return path.join(dir, 'securering.sqlite');
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a file held by another live process of this machine, and says to use PostgreSQL', async () => {
    const sqlite = file();
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      fs.writeFileSync(`${sqlite}.lock`, JSON.stringify({ pid: other.pid, host: os.hostname() }));
      expect(() => acquireSqliteLock(sqlite)).toThrow(SqliteInUseError);
      expect(() => acquireSqliteLock(sqlite)).toThrow(/PostgreSQL/);
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('takes over a lock left by a process that is gone, and removes it on release', async () => {
    const sqlite = file();
    const gone = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => gone.once('exit', resolve));
    fs.writeFileSync(`${sqlite}.lock`, JSON.stringify({ pid: gone.pid, host: os.hostname() }));
    const release = acquireSqliteLock(sqlite);
    expect(JSON.parse(fs.readFileSync(`${sqlite}.lock`, 'utf8')).pid).toBe(process.pid);
    release();
    expect(fs.existsSync(`${sqlite}.lock`)).toBe(false);
  });

  it('takes over a lock of another machine (a replaced container) and a garbled lock file', () => {
    const sqlite = file();
    fs.writeFileSync(`${sqlite}.lock`, JSON.stringify({ pid: process.ppid, host: 'another-host' }));
    acquireSqliteLock(sqlite)();
    fs.writeFileSync(`${sqlite}.lock`, 'not json');
    acquireSqliteLock(sqlite)();
  });
});
