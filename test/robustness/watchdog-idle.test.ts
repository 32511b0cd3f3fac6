import { describe, expect, it } from 'vitest';
import { root, runCli } from '../e2e/cli-helpers.js';

/**
 * The worker watchdog judges a stuck thread, not a slow host. Inside a run the kernel holds
 * virtual time while a hosted program's module loads on the loader thread: the worker sends no
 * heartbeat then, and on a loaded host (a starved loader) that lasted past the 10 s wall-clock
 * limit: a false `watchdog` failure at run 1. Here the load is made slow on purpose (each of the
 * program's six modules delayed 400 ms by a loader hook, 2.4 s in all, against a 1 s watchdog);
 * the worker waits all along, so the check passes. The loops the watchdog exists for keep the
 * thread busy and are still caught (test/robustness/cli-hangs.test.ts).
 */
const program = `${root}/test/robustness/fixtures/slow-program-main.ts`;

describe('the worker watchdog and a slow module load inside a run', () => {
  it('does not end a worker that only waits for a hosted program to load', async () => {
    const started = Date.now();
    const r = await runCli(['check', '--program', program, '--for', 'ConfigMap', '--sample', '{"data":{"a":"1"}}', '--runs', '1', '--seed', '1', '--watchdog', '1000', '--properties', 'never-exits'], { env: { STEADYSTATE_SLOW_MODULE_MS: '400' }, timeoutMs: 120_000 });
    expect(r.stdout + r.stderr).not.toMatch(/watchdog/);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/PASS slow-program-main/);
    // the load really outlasted the watchdog
    expect(Date.now() - started).toBeGreaterThan(2_400);
  }, 150_000);
});
