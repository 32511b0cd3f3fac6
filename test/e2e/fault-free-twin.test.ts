import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import '../../src/vitest/index.js';
import { check, job, podLifecycle, properties, replay, type CheckFailed, type CheckOptions, type Story } from '../../src/index.js';
import { parseReproductionFile, type ReproductionFile } from '../../src/report/json.js';
import { writeReports } from '../../src/report/index.js';
import { dbDropJob, dbDropJobController } from '../../examples/false-positives/db-drop-job.js';
import { failureOf } from '../helpers/failure-of.js';
import { root, runCli, tempDir } from './cli-helpers.js';

/**
 * The liveness properties judge the fault-free twin too (red team rt46 M-2): db-drop-job's buggy
 * twin owns the drop Job it makes from its finalizer, so under a Foreground delete the collector
 * deletes the Job and the controller makes it again within a millisecond, for ever. The faults of
 * a run slow it enough for the collector to win, so every run with faults passes; the fault-free
 * run of the same scenario (the twin the differential properties compare with) never completes
 * the deletion. Before, no property judged that run, and the check passed.
 */
const ownedJob = dbDropJob.buggy!.controllers;
const db = { apiVersion: 'example.com/v1', kind: 'Database', metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'postgres', sizeGi: 10 } };
const story: Story = { objects: [db], actions: [{ at: 5_000, type: 'delete', kind: 'Database', key: 'default/orders', propagationPolicy: 'Foreground' }] };
// short phases: the livelock writes for the whole run, so every run of it is as long as the run
const options = { environment: [job, podLifecycle], story, runs: 3, seed: 1, faultWindowMs: 6_000, settleMs: 6_000, tailMs: 5_000 } satisfies CheckOptions;
// what a replay needs of the check's options (its tail is recorded in the reproduction)
const replayOptions = { environment: options.environment, tailMs: options.tailMs };
const LIVENESS = ['no-hot-loop', 'convergence', 'deletion-completes'];

let checked: Promise<CheckFailed> | undefined;
function failed(): Promise<CheckFailed> {
  return (checked ??= (async () => {
    const r = await check(ownedJob, options);
    expect(r.ok).toBe(false);
    return r as CheckFailed;
  })());
}

let recorded: Promise<{ file: ReproductionFile; path: string }> | undefined;
function reproduction(): Promise<{ file: ReproductionFile; path: string }> {
  return (recorded ??= (async () => {
    const { files } = writeReports(await failed(), { dir: tempDir(), formats: ['json'] });
    return { file: parseReproductionFile(readFileSync(files.json!, 'utf8'), files.json!), path: files.json! };
  })());
}

describe('a controller that livelocks only in the fault-free run', () => {
  it('fails a liveness property, in words that say it happened with no fault at all', async () => {
    const r = await failed();
    expect(LIVENESS).toContain(r.property);
    expect(r.summary).toMatch(/^the fault-free run of this scenario fails (no-hot-loop|convergence|deletion-completes), with no fault at all: /);
    expect(r.explanation).toContain('fails ' + r.property + ' on its own, so no fault is the cause');
    expect(r.evidence['faultFree']).toBe(true);
    expect(r.determinism.ok).toBe(true);
  }, 120_000);

  it('reports, shrinks and saves the scenario without its faults: the faults found it, none is its cause', async () => {
    const r = await failed();
    expect(r.scenario.faults).toEqual({ events: [], background: [] });
    expect(r.originalScenario.faults.events.length + r.originalScenario.faults.background.length).toBeGreaterThan(0);
    expect(r.scenario.workload).toEqual(r.originalScenario.workload);
    expect(r.run.scenario).toEqual(r.scenario);
  }, 120_000);

  it('replays from its reproduction: the buggy controller still fails on the identical trace, the correct one passes', async () => {
    const { file } = await reproduction();
    const buggy = await replay(ownedJob, file, replayOptions);
    expect(buggy).toMatchObject({ ok: false, sameTrace: true, mismatches: [] });
    expect(buggy.property).toBe(file.property.name);
    const fixed = await replay(dbDropJobController, file, replayOptions);
    expect(fixed).toMatchObject({ ok: true, sameTrace: false, mismatches: [] });
  }, 120_000);

  it('toPassReproduction and steadystate replay judge it the same way', async () => {
    const { path, file } = await reproduction();
    await expect(dbDropJobController).toPassReproduction(path, replayOptions);
    expect(await failureOf(expect(ownedJob).toPassReproduction(path, replayOptions))).toContain(`still fails ${file.property.name}`);
    const cli = await runCli(['replay', path, '--module', `${root}/test/e2e/replay-fixtures/db-drop-job-module.ts`], { cwd: tempDir() });
    expect(cli.code, cli.stdout + cli.stderr).toBe(1);
    expect(cli.stdout).toContain('identical trace');
    expect(cli.stdout).toContain(`still fails ${file.property.name}`);
  }, 120_000);

  it('is not judged on the twin by a property the user left out: the twin still runs for no-duplicate-side-effects, which passes', async () => {
    // one run: its twin livelocks (every run's does), and no failure stops a passing check early
    const r = await check(ownedJob, { ...options, runs: 1, properties: [properties.noDuplicateSideEffects()] });
    expect(r.ok).toBe(true);
  }, 120_000);

  it('the correct controller (its drop Job not owned) passes the same check', async () => {
    const r = await check(dbDropJobController, options);
    expect(r.ok ? 'passed' : `${(r as CheckFailed).property}: ${(r as CheckFailed).summary}`).toBe('passed');
  }, 120_000);
});
