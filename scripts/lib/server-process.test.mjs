import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  SERVER_MAIN,
  SERVER_NODE_OPTIONS,
  serverArgs,
  serverNodeOptions,
  supportedNodeOptions,
} from './server-process.mjs';

const v8Options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });

describe('the server’s Node.js options', () => {
  it('turn V8’s allocation-site pretenuring off (issue 30), on this Node.js too', () => {
    expect(SERVER_NODE_OPTIONS).toContain('--no-allocation-site-pretenuring');
    // This run's Node.js lists it.
    expect(serverNodeOptions()).toContain('--no-allocation-site-pretenuring');
    expect(serverArgs(['--inspect'])).toEqual([...serverNodeOptions(), '--inspect', SERVER_MAIN]);
  });

  it('leave out a V8 option this Node.js does not know, in either form, and keep the others', () => {
    const listed = '  --allocation-site-pretenuring (pretenure with allocation sites)\n        type: bool\n';
    expect(
      supportedNodeOptions(
        [
          '--no-allocation-site-pretenuring',
          '--allocation-site-pretenuring',
          '--allocation_site_pretenuring',
          '--no-allocation-site',
          '--allocation-site-pretenuring-extra',
          '--no-such-option',
          '--max-semi-space-size=8',
        ],
        listed,
      ),
    ).toEqual([
      '--no-allocation-site-pretenuring',
      '--allocation-site-pretenuring',
      '--allocation_site_pretenuring',
    ]);
    expect(supportedNodeOptions(['--max-semi-space-size=8'], v8Options)).toEqual(['--max-semi-space-size=8']);
  });

  it('start this Node.js', () => {
    const run = spawnSync(process.execPath, [...serverNodeOptions(), '-e', 'process.exit(0)'], {
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
