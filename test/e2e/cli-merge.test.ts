import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, runCliInProcess } from './cli-helpers.js';

/**
 * `steadystate merge` (issue 16): a check split over a 4-job CI matrix with `--shard i/4`, each
 * shard writing its own report directory, merges into one report and one JUnit file whose counts
 * are those of the unsharded check, and whose failure is the one the unsharded check stops at.
 * The CLI runs in-process (same code as the bin, no child processes).
 */
// checks run in this thread (`--workers 0`): merging is what is tested here, and a worker thread per
// check loads the whole module graph again (about 3 s each, a dozen checks)
const cli = (args: readonly string[], cwd: string) => runCliInProcess(args[0] === 'check' ? [...args, '--workers', '0'] : args, cwd);

async function shards(module: string, runs: number, seed: number, dir: string): Promise<number[]> {
  const codes: number[] = [];
  for (let i = 1; i <= 4; i++) codes.push((await cli(['check', fixture(module), '--runs', String(runs), '--seed', String(seed), '--shard', `${i}/4`, '--report-dir', join(dir, `shard-${i}`)], dir)).code);
  return codes;
}

describe('steadystate merge', () => {
  it('merges 4 passing shards into the counts of the unsharded check, with one JUnit file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'steadystate-merge-'));
    expect(await shards('level.ts', 24, 7, dir)).toEqual([0, 0, 0, 0]);
    for (let i = 1; i <= 4; i++) expect(existsSync(join(dir, `shard-${i}`, 'shard-result.json'))).toBe(true);
    const whole = JSON.parse((await cli(['check', fixture('level.ts'), '--runs', '24', '--seed', '7', '--report-dir', join(dir, 'whole'), '--json'], dir)).stdout) as { runs: number; coverage: unknown };
    const merged = await cli(['merge', 'shard-1', 'shard-2', 'shard-3', 'shard-4', '--report-dir', 'merged', '--json'], dir);
    expect(merged.code, merged.stderr).toBe(0);
    const m = JSON.parse(merged.stdout) as { ok: boolean; runs: number; shards: number; of: number; missing: string[]; reports: Record<string, string> };
    expect(m).toMatchObject({ ok: true, runs: whole.runs, shards: 4, of: 4, missing: [] });
    const junitFiles = readdirSync(join(dir, 'merged')).filter((f) => f.endsWith('.junit.xml'));
    expect(junitFiles).toHaveLength(1);
    const junit = readFileSync(join(dir, 'merged', junitFiles[0]!), 'utf8');
    expect(junit).toContain('failures="0"');
    expect(readFileSync(m.reports['markdown']!, 'utf8')).toMatch(/24 (scenarios|runs)/);
  });

  it('merges 4 shards of a failing check into the failure the unsharded check stops at', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'steadystate-merge-'));
    const codes = await shards('edge.ts', 40, 3, dir);
    expect(codes.filter((c) => c === 1).length).toBeGreaterThan(0);
    const whole = JSON.parse((await cli(['check', fixture('edge.ts'), '--runs', '40', '--seed', '3', '--report-dir', join(dir, 'whole'), '--json'], dir)).stdout) as { property: string; failedAtRun: number };
    const merged = await cli(['merge', 'shard-1', 'shard-2', 'shard-3', 'shard-4', '--report-dir', 'merged', '--json'], dir);
    expect(merged.code).toBe(1);
    const m = JSON.parse(merged.stdout) as { ok: boolean; property: string; failedAtRun: number; reports: Record<string, string> };
    expect(m).toMatchObject({ ok: false, property: whole.property, failedAtRun: whole.failedAtRun });
    expect(readFileSync(m.reports['junit']!, 'utf8')).toMatch(/<failure/);
    expect(existsSync(m.reports['json']!)).toBe(true);
    // the merged reproduction replays
    expect((await cli(['replay', m.reports['json']!, '--json'], dir)).code).toBe(1);
  });

  it('refuses inputs that are not the shards of one check, naming the input and the fix', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'steadystate-merge-'));
    await cli(['check', fixture('level.ts'), '--runs', '8', '--seed', '1', '--shard', '1/2', '--report-dir', join(dir, 'a')], dir);
    await cli(['check', fixture('level.ts'), '--runs', '8', '--seed', '2', '--shard', '2/2', '--report-dir', join(dir, 'b')], dir);
    await cli(['check', fixture('level.ts'), '--runs', '8', '--seed', '1', '--report-dir', join(dir, 'plain')], dir);
    const mixed = await cli(['merge', 'a', 'b'], dir);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/b is shard 2\/2 of a check of .* with seed 2, but a is shard 1\/2 .* seed 1/);
    expect((await cli(['merge', 'a', 'a'], dir)).stderr).toMatch(/both shard 1\/2/);
    expect((await cli(['merge', 'plain'], dir)).stderr).toMatch(/holds no shard-result\.json .*--shard/);
    expect((await cli(['merge', 'nowhere'], dir)).stderr).toMatch(/nowhere does not exist/);
    const partial = await cli(['merge', 'a'], dir);
    expect(partial.code).toBe(1);
    expect(partial.stderr).toMatch(/missing shard 2\/2 of 2/);
  });

  it('refuses a shard result that says "passed" beside its own failure reproduction, or shards that ran different code (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'steadystate-merge-'));
    const codes = await shards('edge.ts', 40, 3, dir);
    const failed = codes.indexOf(1) + 1;
    expect(failed).toBeGreaterThan(0);
    const path = join(dir, `shard-${failed}`, 'shard-result.json');
    const original = readFileSync(path, 'utf8');
    // what a process left behind by the checked code did (red team H6): the failure rewritten as a pass
    const file = JSON.parse(original) as { result: Record<string, unknown>; context: { source: { codeDigest: { sha256: string } } } };
    const { property: _p, summary: _s, explanation: _e, evidence: _v, scenario: _c, originalScenario: _o, path: _a, failedAtRun: _f, shrinks: _h, run: _r, determinism: _d, ...rest } = file.result;
    writeFileSync(path, JSON.stringify({ ...file, result: { ...rest, ok: true } }));
    const forged = await cli(['merge', 'shard-1', 'shard-2', 'shard-3', 'shard-4', '--report-dir', 'merged'], dir);
    expect(forged.code, forged.stdout).toBe(2);
    expect(forged.stderr).toMatch(new RegExp(`shard-${failed} says shard ${failed}/4 passed, but the same folder holds edge-.*\\.json, a reproduction of a failure of that check`));
    // another commit in one shard job
    const other = JSON.parse(original) as typeof file;
    other.context.source.codeDigest.sha256 = '0'.repeat(64);
    writeFileSync(path, JSON.stringify(other));
    const mixed = await cli(['merge', 'shard-1', 'shard-2', 'shard-3', 'shard-4', '--report-dir', 'merged'], dir);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/ran different code/);
  });
});
