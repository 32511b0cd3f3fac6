import { describe, expect, it } from 'vitest';
import { root, runCli } from '../e2e/cli-helpers.js';

/**
 * Issue 17 item 6, the loops no thread can stop from the inside: a synchronous loop and a loop on
 * `await null` in a reconcile. `steadystate check` runs user code in a worker thread by default
 * (no --workers needed), so the watchdog terminates it and the verdict names the task.
 */
const mod = `${root}/test/robustness/fixtures/loops.ts`;

describe('steadystate check without --workers', () => {
  for (const loop of ['sync', 'await-null']) {
    it(`ends a reconcile stuck in a ${loop} loop with a verdict naming it`, async () => {
      const r = await runCli(['check', mod, '--runs', '1', '--seed', '1', '--watchdog', '1500', '--properties', 'convergence'], { env: { STEADYSTATE_LOOP: loop }, timeoutMs: 60_000 });
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stdout).toMatch(/FAIL spinner fails watchdog/);
      expect(r.stdout).toMatch(/reconcile of default\/thing-0 by spinner, in run 1, never returned control: its worker thread was stuck for [\d.]+ s of wall time/);
    }, 90_000);
  }

  it('--workers 0 runs in this thread (and a correct module still passes)', async () => {
    const r = await runCli(['check', mod, '--runs', '2', '--seed', '1', '--workers', '0', '--properties', 'convergence'], { env: { STEADYSTATE_LOOP: 'none' } });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/PASS spinner/);
  }, 60_000);
});
