import fs from 'node:fs';
import os from 'node:os';

/** Why a second server process may not open the same SQLite file. */
export class SqliteInUseError extends Error {}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface LockOwner {
  pid: number;
  host: string;
}

function readOwner(file: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LockOwner>;
    return typeof owner.pid === 'number' && typeof owner.host === 'string'
      ? { pid: owner.pid, host: owner.host }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * SQLite serves one server process: a second instance on the same file would keep its own
 * realtime rooms, rate limits and presence, and both would answer for the same Rings. Takes
 * `<file>.lock` for this process and throws SqliteInUseError when a live process of this machine
 * holds it; a lock left by a process that is gone (a crash, another machine's container) is taken
 * over. Returns the release function (also run at exit).
 */
export function acquireSqliteLock(sqliteFile: string, host = os.hostname()): () => void {
  const lockFile = `${sqliteFile}.lock`;
  const mine = JSON.stringify({ pid: process.pid, host });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(lockFile, mine, { flag: 'wx' });
      const release = () => {
        if (readOwner(lockFile)?.pid === process.pid) fs.rmSync(lockFile, { force: true });
      };
      process.once('exit', release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = readOwner(lockFile);
    if (owner && owner.host === host && owner.pid !== process.pid && isAlive(owner.pid))
      throw new SqliteInUseError(
        `Une autre instance (processus ${owner.pid}) utilise déjà ${sqliteFile}. SQLite ne sert qu’une ` +
          'instance : pour en lancer plusieurs, utilisez PostgreSQL (DATABASE_URL) et Redis (REDIS_URL).',
      );
    // Left by a process that is gone: take it over.
    fs.rmSync(lockFile, { force: true });
  }
  throw new SqliteInUseError(`Verrou ${lockFile} impossible à prendre`);
}
