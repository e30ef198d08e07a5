import fs from 'node:fs';
import path from 'node:path';

/** Owner-only: the data directory holds the database, encrypted Ring files and backups. */
export const PRIVATE_DIR_MODE = 0o700;

/** The data directory cannot be used; its message is the one line the operator reads. */
export class DataDirError extends Error {}

/** Why a file system call failed, in the operator's words. */
export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission refusée';
    case 'ENOTDIR':
      return 'un élément du chemin est un fichier, pas un dossier';
    case 'EROFS':
      return 'système de fichiers en lecture seule';
    case 'ENOSPC':
      return 'plus de place sur le disque';
    case 'EDQUOT':
      return 'quota disque atteint';
    case 'ENAMETOOLONG':
      return 'chemin trop long';
    case 'ELOOP':
      return 'trop de liens symboliques dans le chemin';
    default:
      return code ?? (error instanceof Error ? error.message : String(error));
  }
}

/**
 * Makes `dir` (and its missing parents) owner-only before first use; an existing folder is left
 * as it is. Every folder the server writes below DATA_DIR is made through it.
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await fs.promises.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Checks the data directory before anything uses it (the SQLite lock is the first): creates it and
 * its missing parents owner-only, then writes and removes a probe file (a permission check alone
 * says yes to root on a read-only mount). Throws DataDirError with one French line naming the path
 * and the reason.
 */
export function prepareDataDir(dir: string): void {
  const absolute = path.resolve(dir);
  const unusable = (reason: string) =>
    new DataDirError(`Dossier de données inutilisable (DATA_DIR) : ${absolute} — ${reason}.`);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(absolute, { throwIfNoEntry: false });
  } catch (error) {
    throw unusable(describeFsError(error));
  }
  if (stat && !stat.isDirectory()) throw unusable('un fichier existe à sa place, pas un dossier');
  try {
    if (!stat) fs.mkdirSync(absolute, { recursive: true, mode: PRIVATE_DIR_MODE });
  } catch (error) {
    // A parent that is a file: Node 20 reports it at stat(), Node 22 only here; same words.
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') throw unusable(describeFsError(error));
    throw unusable(`création impossible, ${describeFsError(error)}`);
  }
  const probe = path.join(absolute, `.write-check-${process.pid}`);
  try {
    fs.writeFileSync(probe, '', { mode: 0o600 });
    fs.rmSync(probe, { force: true });
  } catch (error) {
    throw unusable(`écriture impossible, ${describeFsError(error)}`);
  }
}
