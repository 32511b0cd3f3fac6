import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { check } from '../../src/check.js';
import { duplication, eventLoss, reordering } from '../../faults/index.js';
import { convergence } from '../../properties/convergence.js';
import { idempotence } from '../../properties/idempotence.js';
import { noHotLoop } from '../../properties/no-hot-loop.js';
import type { CheckResult } from '../../src/harness/check-result.js';
import { runNotes } from '../../src/report/result.js';
import type { ReproductionFile } from '../../src/report/json.js';
import * as robust from './cli-fixtures/robustness.js';
import * as network from './cli-fixtures/network.js';
import { fixture, runCli, tempDir } from './cli-helpers.js';

/**
 * SPEC §8: a reconciler that throws, rejects, never settles, waits on a real timer, calls the
 * real network or spins synchronously gets a clear verdict naming the cause, the other scenarios
 * still run, and the globals a run patches are restored after every scenario.
 */

/** The globals runs and determinism re-runs patch, captured before anything runs. */
const host = { fetch: globalThis.fetch, setTimeout: globalThis.setTimeout, setInterval: globalThis.setInterval, random: Math.random, now: Date.now, perfNow: performance.now };

function expectGlobalsRestored(): void {
  expect(globalThis.fetch).toBe(host.fetch);
  expect(globalThis.setTimeout).toBe(host.setTimeout);
  expect(globalThis.setInterval).toBe(host.setInterval);
  expect(Math.random).toBe(host.random);
  expect(Date.now).toBe(host.now);
  expect(performance.now).toBe(host.perfNow);
}

function failed(r: CheckResult): asserts r is Extract<CheckResult, { ok: false }> {
  expect(r.ok, 'the check should fail').toBe(false);
}

const options = { ...robust.checkOptions, seed: 1, runs: 10 };

describe('verdicts for misbehaving reconcilers (in this thread)', () => {
  it('a reconcile that throws: the failure names the error', async () => {
    const r = await check(robust.throws, options);
    failed(r);
    expect(r.explanation).toContain('Error: boom: cannot parse spec');
    expectGlobalsRestored();
  });

  it('a reconcile that rejects: the failure names the rejection', async () => {
    const r = await check(robust.rejects, options);
    failed(r);
    expect(r.explanation).toContain('upstream said no');
    expectGlobalsRestored();
  });

  it('a reconcile that never settles: given up on, and the report says it waited outside the simulation', async () => {
    const r = await check(robust.neverSettles, options);
    failed(r);
    expect(r.explanation).toMatch(/still running at the end of the run/);
    expect(r.run.blocked.map((b) => b.label)).toContain('reconcile never-settles/0 default/replicaset-0');
    expect(runNotes(r.run).join('\n')).toMatch(/reconcile never-settles\/0 default\/replicaset-0, started at t=0\.001s, waited on something outside the simulation/);
    expectGlobalsRestored();
  });

  it('a reconcile that waits on a real timer: given up on, named as such, setTimeout restored', async () => {
    const r = await check(robust.realTimer, options);
    failed(r);
    expect(runNotes(r.run).join('\n')).toMatch(/real-timer\/0 .*a real timer such as setTimeout/);
    expectGlobalsRestored();
  });

  it('a reconcile that calls the real network: the request never leaves the process and the verdict names it', async () => {
    // each run routes the global fetch into its simulation; the next run must find it restored
    let sims = 0;
    const leaked: number[] = [];
    const r = await check(network.callsNetwork, {
      ...network.checkOptions,
      seed: 1,
      onSimulation: () => {
        sims++;
        if (globalThis.fetch !== host.fetch) leaked.push(sims);
      },
    });
    expect(sims).toBeGreaterThan(5);
    expect(leaked).toEqual([]);
    failed(r);
    expect(r.property).toBe('isolation');
    expect(r.summary).toMatch(/reconcile of default\/replicaset-0 by calls-network sent POST http:\/\/127\.0\.0\.1:9\/scale through globalThis\.fetch; no simulated service answers it/);
    expectGlobalsRestored();
  });

  it('a correct reconciler after all of them still passes: nothing leaked between checks', async () => {
    const r = await check(robust.fine, { ...options, faults: [eventLoss, duplication, reordering], properties: [convergence(), idempotence(), noHotLoop()], runs: 15 });
    expect(r.ok, r.ok ? '' : r.explanation).toBe(true);
    expect(r.runs).toBe(15);
    expectGlobalsRestored();
  });
});

describe('a reconcile spinning in a synchronous loop (worker mode)', () => {
  it('the watchdog terminates the worker, reports the scenario, runs the remaining scenarios, and replay reproduces the hang', async () => {
    const dir = tempDir();
    const r = await runCli(['check', fixture('robustness.ts'), '--controller', 'spinsOnThree', '--workers', '1', '--watchdog', '2500', '--runs', '3', '--seed', '4', '--properties', 'convergence', '--faults', 'event-loss', '--json'], { cwd: dir, timeoutMs: 180_000 });
    expect(r.code, r.stderr).toBe(1);
    const out = JSON.parse(r.stdout) as { property: string; runs: number; summary: string; explanation: string; reports: Record<string, string> };
    expect(out.property).toBe('watchdog');
    // the verdict names the task that never returned
    expect(out.summary).toMatch(/^reconcile of default\/replicaset-0 by spins-on-three, in run \d+, never returned control: its worker thread was stuck for \d+\.\d s of wall time/);
    expect(out.explanation).toMatch(/looping synchronously/);
    // every scenario was accounted for: the hung ones, and all the others, which ran to the end
    expect(out.runs).toBe(3);
    const repro = JSON.parse(readFileSync(join(dir, out.reports['json']!), 'utf8')) as ReproductionFile;
    const spec = (repro.scenario.workload.find((a) => a.type === 'create') as { object: { spec: { replicas: number } } } | undefined)?.object.spec;
    expect(spec?.replicas).toBe(3);

    const replay = await runCli(['replay', out.reports['json']!, '--watchdog', '2500'], { cwd: dir, timeoutMs: 60_000 });
    expect(replay.code).toBe(1);
    expect(replay.stdout).toMatch(/FAIL the scenario still hangs/);
  }, 240_000);
});
