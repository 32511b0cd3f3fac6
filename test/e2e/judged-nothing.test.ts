import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/vitest/index.js';
import { recovery } from '../../properties/recovery.js';
import { statusTruthfulness } from '../../properties/status-truthfulness.js';
import { buggyWebsite } from '../../examples/bug-zoo/hot-loop/buggy.js';
import { checkOptions } from './cli-fixtures/hot-loop.js';
import { fixture, runCli, runCliInProcess, tempDir } from './cli-helpers.js';

/**
 * Red team N7b, "a pass that says nothing": a hot-looping controller checked only with properties
 * that have nothing to judge in its runs (recovery: no revert; status-truthfulness: no
 * environment, so nothing becomes ready) passed. A pass must say what it judged, and a check in
 * which no selected property judged any run must not pass.
 */

describe('a check in which no selected property judged any run', () => {
  it('the CLI exits 2 saying what (each property, judged 0 of N), why (its reason) and how to fix it', async () => {
    const dir = tempDir();
    const r = await runCli(['check', fixture('hot-loop.ts'), '--controller', 'buggyWebsite', '--seed', '1', '--runs', '4', '--properties', 'recovery,status-truthfulness'], { cwd: dir });
    expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(2);
    expect(r.stdout).toBe('');
    const message = r.stderr.split('\n').find((l) => l.includes('passed vacuously')) ?? '';
    expect(message).toMatch(/^steadystate check: website passed vacuously: no selected property judged any of the 4 runs: /);
    expect(message).toContain('recovery judged 0 of 4 (the workload reverts no spec)');
    expect(message).toContain('status-truthfulness judged 0 of 4 (no environment actor runs');
    expect(message).toMatch(/leave --properties out to judge the default properties/);
    // no report claims a pass
    expect(existsSync(join(dir, 'reports', 'website-pass.md'))).toBe(false);
  });

  it('toPassCheck throws "passed vacuously" (neither a pass nor a failure)', async () => {
    await expect(expect(buggyWebsite).toPassCheck({ ...checkOptions, properties: [recovery(), statusTruthfulness()], runs: 3, seed: 1, reportDir: false })).rejects.toThrow(
      /website passed vacuously: no selected property judged any of the 3 runs: recovery judged 0 of 3 \(the workload reverts no spec\); status-truthfulness judged 0 of 3 \(no environment actor runs.*\), so the pass would say nothing\. Select properties that apply/,
    );
  });
});

describe('a property that judged no run while another did', () => {
  it('is a note of the pass, not a failure: the head line, the summary and the reports say what was judged (also merged from worker threads)', async () => {
    const dir = tempDir();
    const r = await runCli(['check', fixture('hot-loop.ts'), '--seed', '1', '--runs', '4', '--workers', '2', '--properties', 'recovery,status-truthfulness,spec-status-ownership'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^PASS website: 4 runs, seed 1; every property held: spec-status-ownership; recovery, status-truthfulness judged no run\n/);
    expect(r.stdout).toContain('\n  judged per property (runs judged / seen): recovery 0/4 runs, status-truthfulness 0/4, spec-status-ownership 4/4\n');
    expect(r.stdout).toContain('\n  property recovery: judged 0 of 4 runs (the workload reverts no spec): it says nothing here\n');
    const md = readFileSync(join(dir, 'reports', 'website-pass.md'), 'utf8');
    expect(md).toContain('| spec-status-ownership | 4 | 0 |  |');
    expect(md).toContain('> **Note:** `status-truthfulness` judged 0 of 4 runs');
    const xml = readFileSync(join(dir, 'reports', 'website-pass.junit.xml'), 'utf8');
    expect(xml).toMatch(/<testcase name="recovery"[^>]*>\n {6}<skipped message="judged none of the 4 runs it saw: the workload reverts no spec/);
  });
});

describe('merged shards judged what their shards judged', () => {
  it('merge sums the counts per property; a merged pass in which no property judged any run exits 2', async () => {
    const dir = tempDir();
    const flags = ['--seed', '1', '--runs', '4', '--workers', '0', '--properties', 'recovery,status-truthfulness,spec-status-ownership'];
    for (const shard of ['1/2', '2/2']) {
      const r = await runCliInProcess(['check', fixture('hot-loop.ts'), ...flags, '--shard', shard, '--report-dir', join(dir, `s${shard[0]}`)], dir);
      expect(r.code, r.stderr).toBe(0);
    }
    const merged = await runCliInProcess(['merge', 's1', 's2', '--report-dir', 'merged'], dir);
    expect(merged.code, merged.stderr).toBe(0);
    const md = readFileSync(join(dir, 'merged', 'website-pass.md'), 'utf8');
    expect(md).toContain('| spec-status-ownership | 4 | 0 |  |');
    expect(md).toContain('| recovery | 0 | 4 | the workload reverts no spec |');
    // shard results that say no property judged any run (written by an older version, or edited): no pass either
    for (const s of ['s1', 's2']) {
      const file = join(dir, s, 'shard-result.json');
      const f = JSON.parse(readFileSync(file, 'utf8')) as { result: { propertyRuns: { name: string; judged: number; unjudged: number }[] } };
      f.result.propertyRuns = f.result.propertyRuns.map((p) => ({ ...p, judged: 0, unjudged: p.judged + p.unjudged }));
      writeFileSync(file, JSON.stringify(f));
    }
    const vacuous = await runCliInProcess(['merge', 's1', 's2', '--report-dir', 'merged2'], dir);
    expect(vacuous.code, vacuous.stdout).toBe(2);
    expect(vacuous.stderr).toMatch(/^steadystate merge: website passed vacuously over 2 of 2 shards: no selected property judged any of the 4 runs: recovery judged 0 of 4 \(the workload reverts no spec\); .*spec-status-ownership judged 0 of 4/);
  });
});
