import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeReports } from '../../src/report/index.js';
import { writeAtomic } from '../../src/report/write-atomic.js';
import type { CheckFailed } from '../../src/harness/check-result.js';
import { failedFixture } from '../e2e/report-fixtures.js';

/**
 * Issue 17 items 11 and 16: a reproduction is never lost to another one of the same name, a
 * re-run says it replaced an identical file, and temporary files of a killed writer are cleaned.
 */
const tmp = (): string => mkdtempSync(join(tmpdir(), 'steadystate-names-'));

describe('report names are unique per failure (item 11)', () => {
  it('two shards of one seed failing differently keep both reproductions', async () => {
    const dir = tmp();
    const { result } = await failedFixture();
    const a: CheckFailed = { ...result, shard: { index: 0, count: 2 } };
    const b: CheckFailed = { ...result, shard: { index: 1, count: 2 }, scenario: { ...result.scenario, seed: result.scenario.seed + 1 } };
    const wa = writeReports(a, { dir, formats: ['json'] });
    const wb = writeReports(b, { dir, formats: ['json'] });
    expect(wa.files.json).not.toBe(wb.files.json);
    expect(readdirSync(dir).filter((f) => f.endsWith('.json'))).toHaveLength(2);
    expect(wa.files.json).toMatch(/edge-triggered-convergence-42-shard1of2\.json$/);
  });

  it('a different failure with the same seed (a re-run after a change) gets a content-hash name; the first is kept', async () => {
    const dir = tmp();
    const { result } = await failedFixture();
    const first = writeReports(result, { dir, formats: ['json', 'markdown'] });
    const text = readFileSync(first.files.json!, 'utf8');
    const changed: CheckFailed = { ...result, summary: `${result.summary} (after a change)`, scenario: { ...result.scenario, seed: result.scenario.seed + 7 } };
    const second = writeReports(changed, { dir, formats: ['json', 'markdown'] });
    expect(second.files.json).toMatch(/edge-triggered-convergence-42-[0-9a-f]{8}\.json$/);
    expect(readFileSync(first.files.json!, 'utf8')).toBe(text);
    expect(second.replaced).toBe(false);
  });

  it('a re-run of the same failure (even found after a different number of runs) replaces its files and says so', async () => {
    const dir = tmp();
    const { result } = await failedFixture();
    const first = writeReports(result, { dir });
    expect(first.replaced).toBe(false);
    const again = writeReports({ ...result, runs: result.runs + 5, failedAtRun: 1, corpusReplayed: 1 }, { dir });
    expect(again.files).toEqual(first.files);
    expect(again.replaced).toBe(true);
  });
});

describe('temporary files of a killed write are cleaned on the next write (item 16)', () => {
  it('removes .tmp files of dead writers, keeps those of a live one and every other file', () => {
    const dir = tmp();
    const dead = join(dir, `.web-convergence-1.json.999999999.0badc0de.tmp`);
    const live = join(dir, `.web-convergence-1.json.${process.pid}.0badc0de.tmp`);
    const probe = join(dir, `.steadystate-write-probe.999999999.0badc0de`);
    const other = join(dir, 'notes.tmp');
    for (const f of [dead, live, probe, other]) writeFileSync(f, 'x');
    writeAtomic(join(dir, 'web-pass.md'), '# ok');
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(probe)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(other)).toBe(true);
    expect(readFileSync(join(dir, 'web-pass.md'), 'utf8')).toBe('# ok');
  });
});

describe('the CLI says when a re-run replaced the identical reports (item 11)', () => {
  it('the second run of the same failing check in the same directory says so, and writes no second set', async () => {
    const { fixture, runCli, tempDir } = await import('../e2e/cli-helpers.js');
    const dir = tempDir();
    const args = ['check', fixture('edge.ts'), '--seed', '1', '--runs', '20'];
    const first = await runCli(args, { cwd: dir });
    expect(first.code).toBe(1);
    expect(first.stdout).not.toMatch(/replaced/);
    const second = await runCli(args, { cwd: dir });
    expect(second.code).toBe(1);
    expect(second.stdout).toMatch(/each replaced the identical report of this same failure from an earlier run/);
    expect(readdirSync(join(dir, 'reports')).filter((f) => f.endsWith('.json'))).toHaveLength(1);
  });
});
