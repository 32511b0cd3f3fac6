import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, runCli, tempDir } from './cli-helpers.js';

/**
 * Red team, stop 43 (H1, H1c): a module that deleted reports/corpus at import made the next check
 * skip the saved failure and pass ("a bug once found stays found", SPEC §6), and one whose interval
 * deleted it whenever it appeared kept a found failure from ever being saved. The CLI now reads the
 * corpus before the module loads and saves new entries itself once the checked code has ended.
 */
describe('steadystate check on a module that erases the regression corpus at import and whenever it appears', () => {
  it('keeps the failure it found and replays it on the next check (exit 1)', async () => {
    const dir = tempDir();
    const args = ['check', fixture(join('hostile', 'corpus-wipe.ts')), '--runs', '1', '--shrink-time-limit', '2000'];
    const first = await runCli([...args, '--seed', '2'], { cwd: dir });
    expect(first.code, first.stdout + first.stderr).toBe(1);
    const saved = join(dir, 'reports', 'corpus', 'corpus-wipe');
    expect(existsSync(saved) ? readdirSync(saved).length : 0).toBe(1);
    // this seed's own run passes: only the replayed corpus entry can fail it
    const second = await runCli([...args, '--seed', '1'], { cwd: dir });
    expect(second.code, second.stdout + second.stderr).toBe(1);
    expect(second.stdout).toMatch(/FAIL corpus-wipe/);
  }, 120_000);
});
