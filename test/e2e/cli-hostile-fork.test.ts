import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, runCli, runCliInProcess, tempDir } from './cli-helpers.js';

describe('steadystate check ends the processes its checked code started, also those that left its process tree (red team F6, stop 43)', () => {
  it('a forger started by a double fork (a shell that setsid-starts it in the background and exits) is ended with the check: merge of the shard still fails (exit 1)', async () => {
    const dir = tempDir();
    // the two shard jobs of a CI matrix, side by side (each its own CLI, forger and report folder)
    const shards = await Promise.all(['1/2', '2/2'].map((shard) => runCli(['check', fixture(join('hostile', 'double-fork.ts')), '--runs', '2', '--shrink-time-limit', '200', '--seed', '7', '--shard', shard, '--report-dir', `s${shard[0]}`], { cwd: dir })));
    for (const r of shards) expect(r.code, r.stderr).toBe(1);
    // the forger polled every 100 ms for the CLI to be gone
    await new Promise((done) => setTimeout(done, 1500));
    const merged = await runCliInProcess(['merge', 's1', 's2', '--report-dir', 'merged'], dir);
    expect(merged.code, merged.stdout + merged.stderr).toBe(1);
    expect(merged.stdout).toMatch(/FAIL double-fork fails no-hot-loop/);
  }, 120_000);
});
