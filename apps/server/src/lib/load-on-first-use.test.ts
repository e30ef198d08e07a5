import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadOnFirstUse } from './load-on-first-use';

describe('loadOnFirstUse', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'load-on-first-use-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('loads the package on the first call only, and not before', () => {
    const file = path.join(dir, 'counted.cjs');
    const loads = `__loadOnFirstUse_${Date.now()}`;
    fs.writeFileSync(
      file,
      `globalThis.${loads} = (globalThis.${loads} ?? 0) + 1;\nmodule.exports = { answer: 42 };\n`,
    );
    const globals = globalThis as Record<string, unknown>;

    const load = loadOnFirstUse<{ answer: number }>(file);
    expect(globals[loads]).toBeUndefined();
    expect(load().answer).toBe(42);
    expect(load()).toBe(load());
    expect(globals[loads]).toBe(1);
  });

  it('fails on use, not on declaration, when the package is missing', () => {
    const load = loadOnFirstUse(path.join(dir, 'absent.cjs'));
    expect(load).toThrow(/Cannot find module/);
  });
});
