import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectUsageError, fixture, runCliInProcess, tempDir } from './cli-helpers.js';

/**
 * `steadystate check --search` (issue 16): the CI gate reaches all three ways of making runs —
 * swarm (the default), coverage-guided swarm and systematic mode — with each mode's account in
 * the verdict and the reports, and the flags a mode cannot use refused before anything runs.
 */
const quick = ['--faults', 'event-loss', '--properties', 'convergence'];

describe('steadystate check --search systematic', () => {
  it('fails the edge-triggered controller at a derived plan, says which, and its reproduction replays', async () => {
    const dir = tempDir();
    const r = await runCliInProcess(['check', fixture('edge.ts'), '--search', 'systematic', ...quick, '--workers', '0', '-o', join(dir, 'reports')], dir);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^FAIL edge-triggered fails convergence \(systematic plan \d+, the first that failed/);
    expect(r.stdout).not.toMatch(/seed \d/);
    expect(r.stdout).toMatch(/strategy unnotified-state \(event-loss\): \d+ derived, \d+ ran, \d+ pruned.*failed/);
    expect(r.stdout).toMatch(/not run, their fault kinds not enabled: crash-after-write \(crash-restart\)/);
    expect(r.stdout).toMatch(/failing plan, before shrinking: unnotified-state: the state of ReplicaSet default\/replicaset-0/);
    const md = readFileSync(join(dir, 'reports', 'edge-triggered-convergence-1.md'), 'utf8');
    expect(md).toContain('## Systematic search');
    const replay = await runCliInProcess(['replay', join(dir, 'reports', 'edge-triggered-convergence-1.json'), '--json'], dir);
    expect(replay.code).toBe(1);
    expect(JSON.parse(replay.stdout)).toMatchObject({ sameTrace: true });
  });

  it('passes the level-triggered controller, listing what each strategy derived, ran and pruned; --runs caps the plans', async () => {
    const dir = tempDir();
    const r = await runCliInProcess(['check', fixture('level.ts'), '--search', 'systematic', '--runs', '40', '--workers', '0', '-o', join(dir, 'reports')], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^PASS level-triggered: \d+ systematic plans; every property held/);
    expect(r.stdout).toMatch(/systematic search: 40 plans run \(depth 2; .*cut short by --runs/);
    expect(r.stdout).toMatch(/strategy crash-after-write \(crash-restart\): \d+ derived, \d+ ran, \d+ pruned/);
    const html = readFileSync(join(dir, 'reports', 'level-triggered-pass.html'), 'utf8');
    expect(html).toContain('<section id="systematic"><h2>Systematic search</h2>');
  });
});

describe('steadystate check --search systematic under the watchdog', () => {
  it('ends with the watchdog verdict for the plan that hung (no resume: a plan has no run index)', async () => {
    const dir = tempDir();
    const r = await runCliInProcess(['check', fixture('robustness.ts'), '--controller', 'spinsOnThree', '--search', 'systematic', '--watchdog', '1000', ...quick, '--json', '-o', join(dir, 'reports')], dir);
    expect(r.code, r.stderr).toBe(1);
    const out = JSON.parse(r.stdout) as { property: string; summary: string };
    expect(out.property).toBe('watchdog');
    expect(out.summary).toMatch(/in systematic plan 1, never returned control/);
  }, 60_000);
});

describe('steadystate check --search guided', () => {
  it('runs coverage-guided swarm and says so in the pass report', async () => {
    const dir = tempDir();
    const r = await runCliInProcess(['check', fixture('level.ts'), '--search', 'guided', '--runs', '12', '--seed', '3', ...quick, '--workers', '0', '-o', join(dir, 'reports')], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'reports', 'level-triggered-pass.md'), 'utf8')).toMatch(/guided search: \d+ mutants of \d+ coverage-adding runs/);
  });

  it('under the watchdog, a run that hangs is reported and the remaining runs still run (the resumed pool does not re-run the hung run)', async () => {
    const dir = tempDir();
    const r = await runCliInProcess(['check', fixture('robustness.ts'), '--controller', 'spinsOnThree', '--search', 'guided', '--watchdog', '1000', '--runs', '3', '--seed', '4', ...quick, '--json', '-o', join(dir, 'reports')], dir);
    expect(r.code, r.stderr).toBe(1);
    const out = JSON.parse(r.stdout) as { property: string; runs: number };
    expect(out.property).toBe('watchdog');
    expect(out.runs).toBe(3);
  }, 90_000);
});

describe('steadystate check --search: flags a mode cannot use', () => {
  it('refuses an unknown mode, guided over several workers, and systematic with a shard or a seed (exit 2)', async () => {
    const dir = tempDir();
    expectUsageError(await runCliInProcess(['check', fixture('edge.ts'), '--search', 'fuzz'], dir), '--search expects one of swarm, guided, systematic', '"fuzz"');
    expectUsageError(await runCliInProcess(['check', fixture('edge.ts'), '--search', 'guided', '--workers', '2'], dir), '--search guided runs in one worker thread', '--workers 2');
    expectUsageError(await runCliInProcess(['check', fixture('edge.ts'), '--search', 'systematic', '--shard', '1/2', '--seed', '3'], dir), '--search systematic cannot use --shard', '--seed');
  });
});
