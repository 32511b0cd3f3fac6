import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, runCliInProcess, tempDir } from './cli-helpers.js';

/**
 * Red team, stop 42 (F1, F2, F8, F10): a module's checkOptions set fields the command owns (its
 * budget clock, the runs to skip, the corpus callback, the determinism check) and so picked its
 * own verdict: each of these hot-looping controllers got exit 0. The command now refuses them
 * (exit 2), naming the field and what to use instead. Fixtures in cli-fixtures/hostile/owned-*.ts.
 */
const cases = [
  ['flip', /set corpus\.onFailure: the command owns it/],
  ['clock', /set wallClock, timeLimitMs: the command owns them.*pass --time-limit/],
  ['resume', /set resumeAt: the command owns it/],
  ['determinism', /set determinism: false: the command owns it/],
  ['signal', /set signal: the command owns it.*Ctrl-C/],
] as const;

describe('steadystate check on a module whose checkOptions set what the command owns', () => {
  it.each(cases)('owned-%s.ts: refused (exit 2), never a pass', async (name, message) => {
    const dir = tempDir();
    const r = await runCliInProcess(['check', fixture(join('hostile', `owned-${name}.ts`)), '--runs', '20', '--seed', '1', '--workers', '0', '--report-dir', join(dir, 'r')], dir);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).not.toMatch(/PASS/);
  });

  it("owned-getter.ts: a getter that hides the field from the refusal's read hides it from the check too: the options are read once (exit 1, the hot loop's failure)", async () => {
    const dir = tempDir();
    const r = await runCliInProcess(['check', fixture(join('hostile', 'owned-getter.ts')), '--runs', '5', '--seed', '1', '--shrink-time-limit', '200', '--workers', '0', '--report-dir', join(dir, 'r')], dir);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/FAIL/);
  });
});
