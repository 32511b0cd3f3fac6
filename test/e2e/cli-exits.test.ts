import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, runCli, runCliInProcess, tempDir } from './cli-helpers.js';

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
    // the forging JSON.stringify never reached the verdict: the run guard put it back when the reconcile returned (session 7)
  });

  it('a genuine passing result posted on parentPort (and a command emitted on it) is not the verdict: the pool reads its own channel (exit 1)', async () => {
    // one worker, the one that loaded the module and runs the whole check: with two, the other
    // slot's genuine failure would win the merge and hide a forgery
    const r = await runCli(['check', fixture('forges.ts'), '--controller', 'forgesVerdict', '--runs', '10', '--seed', '1', '--workers', '1', '--json']);
    expect(r.code, r.stderr).toBe(1);
    const verdict = JSON.parse(r.stdout) as { ok: boolean; property: string };
    expect(verdict.ok).toBe(false);
    expect(verdict.property).toBe('convergence');
  });
});

/**
 * Session 7: `Math.max = () => 0` in a reconcile hung `--workers 0` (the kernel and the scheduler
 * ran under it) and, in a worker thread, was blamed on "a synchronous loop" by the watchdog. The
 * run guard puts it back when the reconcile hands control back, and the run fails never-exits
 * naming the built-in: in this thread, in a worker thread, and in the replay.
 */
describe('steadystate check on code that replaces a built-in', () => {
  const args = ['check', fixture('builtins.ts'), '--controller', 'replacesMathMax', '--runs', '3', '--seed', '1', '--json'];
  const expectNamed = (r: { code: number; stdout: string; stderr: string }): void => {
    expect(r.code, r.stderr).toBe(1);
    const verdict = JSON.parse(r.stdout) as { ok: boolean; property: string; summary: string };
    expect(verdict.ok).toBe(false);
    expect(verdict.property).toBe('never-exits');
    expect(verdict.summary).toMatch(/the code under test replaced the built-in Math\.max by t=.*; steadystate put it back/);
  };

  it('fails never-exits in this thread (--workers 0: hung), and the replay fails the same way', async () => {
    const dir = tempDir();
    const r = await runCliInProcess([...args, '--workers', '0', '-o', join(dir, 'reports')], dir);
    expectNamed(r);
    expect(Math.max(1, 2)).toBe(2);
    const replay = await runCliInProcess(['replay', join(dir, 'reports', 'replaces-math-max-never-exits-1.json'), '--json'], dir);
    expect(replay.code, replay.stderr).toBe(1);
    expect(replay.stdout).toMatch(/replaced the built-in Math\.max/);
  });

  it('fails never-exits in a worker thread (was: the watchdog blamed a synchronous loop)', async () => {
    const dir = tempDir();
    const r = await runCliInProcess([...args, '--workers', '1', '-o', join(dir, 'reports')], dir);
    expectNamed(r);
    expect(r.stdout).not.toMatch(/watchdog|synchronous loop/);
  });
});
