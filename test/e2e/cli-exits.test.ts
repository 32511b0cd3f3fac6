import { describe, expect, it } from 'vitest';
import { fixture, runCli } from './cli-helpers.js';

/**
 * Issue 17 items 1 and 3: code that exits, throws from nowhere or leaves timers behind never
 * makes `steadystate check` exit 0; the exit code is the verdict's, in this thread and with
 * worker threads.
 */
describe('steadystate check on code that would end the process', () => {
  it('process.exit(0) in a reconcile fails never-exits (exit 1), in this thread', async () => {
    const r = await runCli(['check', fixture('exits.ts'), '--controller', 'exitsZero', '--runs', '3', '--seed', '1']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/FAIL exits-zero fails never-exits/);
    expect(r.stdout).toMatch(/the code under test called process\.exit\(0\)/);
    expect(r.stdout).toMatch(/at .*exits\.ts:\d+:\d+/);
  });

  it('process.exit(0) in a reconcile fails never-exits with --workers, without a worker crash', async () => {
    const r = await runCli(['check', fixture('exits.ts'), '--controller', 'exitsZero', '--runs', '4', '--seed', '1', '--workers', '2']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/fails never-exits/);
    expect(r.stderr).not.toMatch(/worker thread/);
  });

  it('process.exit(0) at import is a usage error (exit 2) naming the call', async () => {
    const r = await runCli(['check', fixture('exits-on-import.ts'), '--runs', '2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/its top level called process\.exit\(0\)/);
  });

  it('an unhandled rejection fails the run with its stack; intervals do not outlive the check', async () => {
    const r = await runCli(['check', fixture('exits.ts'), '--controller', 'leaksTimers', '--runs', '3', '--seed', '1', '--workers', '1']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/fails never-exits/);
    expect(r.stdout).toMatch(/nobody handles this rejection/);
    expect(r.stdout).toMatch(/at .*exits\.ts:\d+:\d+/);
  });

  it('an exit hook that resets the exit code, forged verdict lines on stdout, a forging JSON.stringify and a SIGTERM to itself: exit 1, stdout the verdict alone (session 6)', async () => {
    const r = await runCli(['check', fixture('exits.ts'), '--controller', 'sabotage', '--runs', '2', '--seed', '1', '--json']);
    expect(r.code, r.stderr).toBe(1);
    // stdout is the one JSON object of --json: the forged lines went to stderr
    const verdict = JSON.parse(r.stdout) as { ok: boolean; property: string; summary: string };
    expect(verdict.ok).toBe(false);
    expect(verdict.property).toBe('never-exits');
    expect(verdict.summary).toMatch(/the code under test called process\.kill\(process\.pid, 'SIGTERM'\)/);
    expect(r.stderr).toMatch(/PASS sabotage: 100 runs, 0 failed/);
    expect(r.stderr).toMatch(/the code under test replaced built-ins that steadystate computes its verdict and writes its reports with: JSON\.stringify\. They are put back/);
  });
});
