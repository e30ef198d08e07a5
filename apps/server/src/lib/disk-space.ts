import fs from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';

/** Default DATA_DIR_MIN_FREE_MB: below this much free space, /readyz fails (`storage: disk full`). */
export const DEFAULT_MIN_FREE_MB = 200;
/** The back office warns below this many times the readiness threshold (1 GiB at least). */
export const WARN_FACTOR = 5;
const MIN_WARN_BYTES = 1024 ** 3;

/** Free and total bytes of the file system holding a folder. */
export interface DiskReading {
  freeBytes: number;
  totalBytes: number;
}

/** Reads a folder's file system; tests replace it (see DiskSpace). */
export type DiskProbe = (dir: string) => Promise<DiskReading>;

/** statfs(2): the bytes an unprivileged process may still write (`bavail`), not the root reserve. */
export const statfsProbe: DiskProbe = async (dir) => {
  const stats = await fs.promises.statfs(path.resolve(dir));
  return {
    freeBytes: Number(stats.bavail) * Number(stats.bsize),
    totalBytes: Number(stats.blocks) * Number(stats.bsize),
  };
};

/** ok: room enough; low: below the warning threshold (the back office says so); full: readiness fails. */
export type DiskState = 'ok' | 'low' | 'full';

export interface DiskStatus extends DiskReading {
  minFreeBytes: number;
  warnFreeBytes: number;
  state: DiskState;
}

/** The warning threshold shown in the back office for a readiness threshold. */
export const warnFreeBytesFor = (minFreeBytes: number): number =>
  Math.max(MIN_WARN_BYTES, minFreeBytes * WARN_FACTOR);

/** Where free space stands against the thresholds (pure). */
export function diskStateOf(freeBytes: number, minFreeBytes: number): DiskState {
  if (freeBytes < minFreeBytes) return 'full';
  return freeBytes < warnFreeBytesFor(minFreeBytes) ? 'low' : 'ok';
}

/**
 * Free space on DATA_DIR's file system against DATA_DIR_MIN_FREE_MB. Below it the instance is
 * unfit (/readyz fails with `storage: disk full`) before SQLite and file writes start failing
 * half-way. `minFreeBytes` may change while running (tests raise it above the real free space,
 * then lower it to show recovery without a restart).
 */
export class DiskSpace {
  constructor(
    private readonly dir: string,
    public minFreeBytes: number,
    private readonly probe: DiskProbe = statfsProbe,
  ) {}

  async status(): Promise<DiskStatus> {
    const reading = await this.probe(this.dir);
    return {
      ...reading,
      minFreeBytes: this.minFreeBytes,
      warnFreeBytes: warnFreeBytesFor(this.minFreeBytes),
      state: diskStateOf(reading.freeBytes, this.minFreeBytes),
    };
  }
}

/** SQLite, the file system, and PostgreSQL saying the disk (or the quota) is full. */
const DISK_FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT', '53100']);

/** True when the error, or one it wraps (`cause`), is a "disk full" error. */
export function isDiskFullError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && DISK_FULL_CODES.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** At most one "disk full" log line per this interval; the others are counted in the next one. */
export const DISK_FULL_LOG_INTERVAL_MS = 60_000;

/**
 * Logs a full disk once, clearly, rather than once per failed request: the first error in each
 * minute is logged with its code; the ones in between are counted and reported with the next.
 */
export class DiskFullLog {
  private lastAt = Number.NEGATIVE_INFINITY;
  private suppressed = 0;

  constructor(
    private readonly logger: Pick<FastifyBaseLogger, 'error'>,
    private readonly now: () => number = Date.now,
  ) {}

  report(error: unknown, context: Record<string, unknown> = {}): void {
    const at = this.now();
    if (at - this.lastAt < DISK_FULL_LOG_INTERVAL_MS) {
      this.suppressed++;
      return;
    }
    const e = error as { code?: unknown; message?: unknown };
    this.logger.error(
      {
        code: e.code,
        cause: typeof e.message === 'string' ? e.message.slice(0, 200) : undefined,
        sinceLastReport: this.suppressed,
        ...context,
      },
      'disk full: writes are refused (507) until space is freed on DATA_DIR (or the database disk)',
    );
    this.lastAt = at;
    this.suppressed = 0;
  }
}
