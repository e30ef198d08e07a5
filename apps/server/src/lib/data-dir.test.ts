import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirError, ensurePrivateDir, prepareDataDir } from './data-dir';

describe('prepareDataDir (issue 23)', () => {
  const dirs: string[] = [];
  const scratch = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'data-dir-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) {
      fs.chmodSync(dir, 0o700);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  const modeOf = (dir: string) => fs.statSync(dir).mode & 0o777;

  it('creates an absent directory owner-only and leaves nothing else in it', () => {
    const dir = path.join(scratch(), 'data');
    prepareDataDir(dir);
    expect(fs.statSync(dir).isDirectory()).toBe(true);
    expect(modeOf(dir)).toBe(0o700);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('creates missing parents owner-only too, and accepts a relative path', () => {
    const base = scratch();
    const dir = path.join(base, 'srv', 'securering', 'data');
    prepareDataDir(path.relative(process.cwd(), dir));
    for (const made of [path.join(base, 'srv'), path.join(base, 'srv', 'securering'), dir])
      expect(modeOf(made)).toBe(0o700);
  });

  it('leaves an existing directory and its permissions as they are', () => {
    const dir = path.join(scratch(), 'data');
    fs.mkdirSync(dir, { mode: 0o750 });
    fs.chmodSync(dir, 0o750);
    fs.writeFileSync(path.join(dir, 'securering.sqlite'), 'kept');
    prepareDataDir(dir);
    expect(modeOf(dir)).toBe(0o750);
    expect(fs.readdirSync(dir)).toEqual(['securering.sqlite']);
  });

  it('refuses a file in its place with one French line naming the path', () => {
    const file = path.join(scratch(), 'data');
    fs.writeFileSync(file, 'not a folder');
    expect(() => prepareDataDir(file)).toThrow(DataDirError);
    expect(() => prepareDataDir(file)).toThrow(
      `Dossier de données inutilisable (DATA_DIR) : ${file} — un fichier existe à sa place, pas un dossier.`,
    );
    expect(fs.readFileSync(file, 'utf8')).toBe('not a folder');
  });

  it('refuses a path below a file (a parent is a file)', () => {
    const file = path.join(scratch(), 'parent');
    fs.writeFileSync(file, '');
    const dir = path.join(file, 'data');
    expect(() => prepareDataDir(dir)).toThrow(
      `Dossier de données inutilisable (DATA_DIR) : ${dir} — un élément du chemin est un fichier, pas un dossier.`,
    );
  });

  it('refuses a directory it cannot create (sysfs refuses even root)', () => {
    // Owner-based permissions do not stop root (this suite runs as root in CI); sysfs does, and so
    // does a read-only parent for anyone else. The not-writable case through permissions is in the
    // browser-free operator test (e2e/specs/operator.e2e.ts), run as an unprivileged user.
    const dir =
      process.getuid?.() === 0
        ? '/sys/securering-test/data'
        : (() => {
            const parent = scratch();
            fs.chmodSync(parent, 0o500);
            return path.join(parent, 'data');
          })();
    expect(() => prepareDataDir(dir)).toThrow(DataDirError);
    expect(() => prepareDataDir(dir)).toThrow(
      /^Dossier de données inutilisable \(DATA_DIR\) : .+ — création impossible, /,
    );
  });
});

describe('ensurePrivateDir', () => {
  it('makes a folder and its missing parents owner-only, and is idempotent', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'data-dir-'));
    try {
      const dir = path.join(base, 'ring-files', 'ring-1');
      await ensurePrivateDir(dir);
      await ensurePrivateDir(dir);
      expect(fs.statSync(path.join(base, 'ring-files')).mode & 0o777).toBe(0o700);
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});
