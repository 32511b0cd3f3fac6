import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, runCli, tempDir } from './cli-helpers.js';

/**
 * Holes a red team found in stop 40, each closed: a module that is buggy (a hot loop, or an
 * off-by-one observedGeneration) must never get exit 0 from `steadystate check` or `replay`,
 * whatever it does at import or from its reconcile. Fixtures in cli-fixtures/hostile/.
 */
const hostile = (name: string) => fixture(join('hostile', `${name}.ts`));

describe('steadystate check on modules that tamper with the harness (red team, stop 40)', () => {
  it('swapping the property catalogue for look-alikes at import is refused: the catalogue is frozen (exit 2)', async () => {
    const r = await runCli(['check', hostile('patch-catalogue'), '--runs', '2', '--seed', '1', '--workers', '0']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/Cannot assign to read only property/);
  });

  it('a replaced array iterator that empties the judges, or checkOptions.properties: [], judges nothing: exit 2, never a pass', async () => {
    for (const name of ['iter-patch', 'empty-properties']) {
      const r = await runCli(['check', hostile(name), '--runs', '2', '--seed', '1', '--workers', '0']);
      expect(r.code, `${name}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/no property was judged/);
      expect(r.stdout).not.toMatch(/PASS/);
    }
  });

  it('a reconcile that reaches the store through ctx to undo its bug cannot: ctx holds the instance in a JS-private field (exit 1)', async () => {
    const r = await runCli(['check', hostile('ctx-internals'), '--controller', 'cheats', '--runs', '5', '--seed', '1', '--workers', '0']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/FAIL cheats fails convergence/);
  });

  it('process.emit wrapped, or process.reallyExit and process.stdout._write replaced at import, in this thread: the verdict and its exit code stand, for check and replay', async () => {
    for (const name of ['emit-exit', 'forges-stdout']) {
      const dir = tempDir();
      const r = await runCli(['check', hostile(name), '--runs', '2', '--seed', '1', '--workers', '0', '--report-dir', dir]);
      expect(r.code, `${name}: ${r.stderr}`).toBe(1);
      expect(r.stdout).toMatch(new RegExp(`FAIL ${name} fails no-hot-loop`));
      if (name === 'emit-exit') continue;
      const replay = await runCli(['replay', join(dir, `${name}-no-hot-loop-1.json`)]);
      expect(replay.code, `${name} replay: ${replay.stderr}`).toBe(1);
      expect(replay.stdout).toMatch(new RegExp(`FAIL ${name} still fails no-hot-loop`));
    }
  });
});
