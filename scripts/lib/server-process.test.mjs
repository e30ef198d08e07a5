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
  it('turn V8’s allocation-site pretenuring off and cap its young generation (issue 30), on this Node.js too', () => {
    expect(SERVER_NODE_OPTIONS).toEqual(['--no-allocation-site-pretenuring', '--max-semi-space-size=8']);
    // This run's Node.js lists them.
    expect(serverNodeOptions()).toEqual(SERVER_NODE_OPTIONS);
    expect(serverArgs(['--inspect'])).toEqual([...serverNodeOptions(), '--inspect', SERVER_MAIN]);
  });

  it('leave out an option this Node.js does not know, V8’s in either form, and keep the others', () => {
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
        new Set(),
      ),
    ).toEqual([
      '--no-allocation-site-pretenuring',
      '--allocation-site-pretenuring',
      '--allocation_site_pretenuring',
    ]);
    expect(supportedNodeOptions(['--max-semi-space-size=8'], v8Options, new Set())).toEqual([
      '--max-semi-space-size=8',
    ]);
    // Node's own options are not in V8's list: kept when this Node.js knows them.
    expect(
      supportedNodeOptions(
        ['--enable-source-maps', '--no-such-node-option'],
        listed,
        process.allowedNodeEnvironmentFlags,
      ),
    ).toEqual(['--enable-source-maps']);
  });

  it('start this Node.js', () => {
    const run = spawnSync(process.execPath, [...serverNodeOptions(), '-e', 'process.exit(0)'], {
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
