import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { snapshotIntrinsics } from '../../src/host/intrinsics.js';
import { fixture, runCli, runCliInProcess, tempDir } from './cli-helpers.js';

/**
 * Red team, stop 42 (scratch/rt42: F3, F4, F6b, F11, F12): a hot-looping controller whose module
 * bends the host (an accessor on Object.prototype, a patched steadystate class, an exit listener,
 * an executable named `esbuild`) or a CI flag that skipped a guard got exit 0, or a forged shard
 * result. Fixtures in cli-fixtures/hostile/. The checked module runs in a worker thread (the
 * default) wherever the hole does not need the CLI's own process, so nothing it patches reaches
 * this test process.
 */
const hostile = (name: string): string => fixture(join('hostile', `${name}.ts`));
const fast = ['--shrink-time-limit', '200'];

describe.concurrent('steadystate check on a module that bends the host it runs in (red team rt42)', () => {
  it('F3: an accessor added to Object.prototype at import (a getter `interrupted` that dropped the failing runs as cut short) is refused at load (exit 2), naming it', async () => {
    const dir = tempDir();
    // seed 3: the first run passes and the second loops (the getter made that a 1-run PASS)
    const r = await runCliInProcess(['check', hostile('proto-getter'), '--runs', '4', '--seed', '3', ...fast, '--report-dir', join(dir, 'r')], dir);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(/replaced built-ins at import: Object\.prototype\.interrupted \(added\), inherited by every object/);
    expect(r.stdout).not.toMatch(/PASS/);
  });

  it("F4: ObjectStore.prototype.record patched at import to hide the controller's writes: steadystate's classes are frozen before the module loads, so it fails to load (exit 2)", async () => {
    const dir = tempDir();
    const r = await runCliInProcess(['check', hostile('store-proto'), '--runs', '2', '--seed', '1', ...fast, '--report-dir', join(dir, 'r')], dir);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(/Cannot assign to read only property 'record'/);
    expect(r.stdout).not.toMatch(/PASS/);
  });

  it('F12: --search systematic no longer skips the "no reconcile ran" guard (exit 2)', async () => {
    const dir = tempDir();
    const r = await runCliInProcess(['check', hostile('sloppy'), '--controller', 'wrongKind', '--search', 'systematic', '--report-dir', join(dir, 'r')], dir);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(/no reconcile ran in \d+ runs: no Deployment object ever reached the controller/);
  });

  it("F11: with --workers 0, the module's exit listener does not run after the shard result is written (it would rewrite it as a pass)", async () => {
    const dir = tempDir();
    const r = await runCli(['check', hostile('exit-listener'), '--runs', '2', '--seed', '1', ...fast, '--workers', '0', '--shard', '1/2', '--report-dir', 's1'], { cwd: dir });
    expect(r.code, r.stderr).toBe(1);
    const shard = JSON.parse(readFileSync(join(dir, 's1', 'shard-result.json'), 'utf8')) as { result: { ok: boolean; property: string | null } };
    expect(shard.result.ok).toBe(false);
    expect(shard.result.property).toBe('no-hot-loop');
  });

  it('F6b: a detached process started through an executable named `esbuild` is ended with the check like any other (only the compiler service recorded before the module ran is spared)', async () => {
    const dir = tempDir();
    const r = await runCli(['check', hostile('esbuild-named'), '--runs', '2', '--seed', '1', ...fast, '--report-dir', 'r'], { cwd: dir });
    expect(r.code, r.stderr).toBe(1);
    // the process polled every 50 ms for the CLI to be gone
    await sleep(1000);
    expect(existsSync(join(dir, 'escaped')), 'the process outlived the check').toBe(false);
  });
});

describe('the load-time built-ins check names what a polyfill never does (red team rt42 F3)', () => {
  it('a key added to Object.prototype, or an accessor added anywhere, is not labelled a plain addition; a data key added to another prototype is', () => {
    const snap = snapshotIntrinsics();
    const added = Symbol('rt42');
    try {
      Object.defineProperty(Array.prototype, added, { configurable: true, writable: true, value: () => 1 });
      Object.defineProperty(Map.prototype, 'rt42Getter', { configurable: true, get: () => 1 });
      Object.defineProperty(Object.prototype, 'rt42Flag', { configurable: true, writable: true, value: false });
      expect(snap.changed().sort()).toEqual(['Array.prototype[rt42] (added)', 'Map.prototype.rt42Getter (added), an accessor', 'Object.prototype.rt42Flag (added), inherited by every object']);
    } finally {
      expect(snap.restore()).toHaveLength(3);
    }
    expect(snap.changed()).toEqual([]);
  });
});
