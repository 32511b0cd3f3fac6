import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReproductionFile } from '../../src/report/json.js';
import { fixture, root, runCli, runCliInProcess, tempDir } from './cli-helpers.js';

/** `steadystate check` and `replay` end to end: exit codes, reports, corpus, sharding, workers. */

interface JsonOut {
  ok: boolean;
  controller: string;
  runs: number;
  seed: number;
  corpusReplayed: number;
  coverage: { kind: string; enabled: number; injected: number; changedBehaviour: number }[];
  stats: { reconciles: number };
  shard?: { index: number; count: number };
  property?: string;
  failedAtRun?: number;
  traceHash?: string;
  reports: Record<string, string>;
  replay?: string;
}

const parse = (stdout: string): JsonOut => JSON.parse(stdout) as JsonOut;

/**
 * A check in this thread (`--workers 0`, the same `run` as the bin, no child process), for tests
 * about what a check computes (the corpus it replays, how shards add up) rather than about the
 * process or the worker threads; each start of the bin loads the engine again (about 2 s of CPU).
 * The report folder is absolute: a relative one would be this process's working directory's.
 */
const checkInProcess = (args: readonly string[], reportDir: string) => runCliInProcess([...args, '--workers', '0', '--report-dir', reportDir], dirname(reportDir));

/**
 * `check edge.ts --seed 1 --runs 30 --faults event-loss` in a fresh folder, by the bin in its
 * default worker thread: run once for the tests that read what it prints and writes (none of them
 * writes into its reports).
 */
let edgeFailure: Promise<{ dir: string; run: Awaited<ReturnType<typeof runCli>> }> | undefined;
const EDGE_FAILURE = ['check', fixture('edge.ts'), '--seed', '1', '--runs', '30', '--faults', 'event-loss'];
function edgeFailureRun(): Promise<{ dir: string; run: Awaited<ReturnType<typeof runCli>> }> {
  edgeFailure ??= (async () => {
    const dir = tempDir();
    return { dir, run: await runCli(EDGE_FAILURE, { cwd: dir }) };
  })();
  return edgeFailure;
}

/** Properties the level-triggered fixture satisfies under every fault (the tests here are about the CLI, not the oracles). */
const SOUND = 'convergence,idempotence,no-hot-loop';

describe('steadystate check', () => {
  it('exits 0 when every property holds, prints the stats, writes summary reports and plain progress lines', async () => {
    const dir = tempDir();
    const r = await runCli(['check', fixture('level.ts'), '--seed', '3', '--runs', '25', '--properties', SOUND], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^PASS level-triggered: 25 runs, seed 3; every property held: convergence/);
    expect(r.stdout).toMatch(/reconciles and .* store writes per object/);
    // behaviour coverage and its growth, up to the last run
    expect(r.stdout).toMatch(/\n {2}behaviour coverage \(swarm\): (\d+) distinct behaviours; growth \d+ after run \d+, .*\b\1 after run 25\n/);
    expect(r.stdout).not.toMatch(/\u001b\[/); // NO_COLOR and not a TTY
    expect(r.stderr).toMatch(/steadystate check level-triggered: 25 runs, 0 failed/);
    const files = readdirSync(join(dir, 'reports')).sort();
    expect(files).toEqual(['level-triggered-pass.html', 'level-triggered-pass.junit.xml', 'level-triggered-pass.md']);
  });

  it('exits 1 on a failure after writing all four reports and the corpus; replay reproduces the identical trace', async () => {
    const { dir, run: r } = await edgeFailureRun();
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^FAIL edge-triggered fails convergence/);
    expect(r.stdout).toMatch(/Let: .*Then: /s);
    const base = join(dir, 'reports', 'edge-triggered-convergence-1');
    for (const ext of ['.json', '.md', '.html', '.junit.xml']) expect(existsSync(base + ext), ext).toBe(true);
    expect(r.stdout).toContain('Replay: npx steadystate replay reports/edge-triggered-convergence-1.json');
    const repro = JSON.parse(readFileSync(base + '.json', 'utf8')) as ReproductionFile;
    expect(repro.controller.source).toEqual({ module: expect.stringMatching(/cli-fixtures\/edge\.ts$/), exportName: 'edgeTriggered', checkOptions: 'checkOptions', codeDigest: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/), files: expect.any(Number) } });
    expect(repro.scenario.faults.events).toEqual([{ kind: 'event-loss', nth: 0 }]);
    expect(readdirSync(join(dir, 'reports', 'corpus', 'edge-triggered'))).toHaveLength(1);

    const replay = await runCli(['replay', 'reports/edge-triggered-convergence-1.json'], { cwd: dir });
    expect(replay.code, replay.stderr).toBe(1);
    expect(replay.stdout).toContain(`identical trace (hash ${repro.traceHash})`);
    expect(replay.stdout).toMatch(/FAIL edge-triggered still fails convergence/);

    // the same replay in this thread (the bin's replay is the one above)
    const json = await runCliInProcess(['replay', 'reports/edge-triggered-convergence-1.json', '--json'], dir);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, property: 'convergence', sameTrace: true, hash: repro.traceHash });
  });

  it('replays the regression corpus first on the next check of the same controller', async () => {
    const reports = join(tempDir(), 'reports');
    const first = await checkInProcess(['check', fixture('edge.ts'), '--seed', '1', '--runs', '30', '--json'], reports);
    expect(first.code).toBe(1);
    expect(parse(first.stdout).corpusReplayed).toBe(0);
    // another seed: the corpus scenario still fails first
    const second = await checkInProcess(['check', fixture('edge.ts'), '--seed', '99', '--runs', '30', '--json'], reports);
    const out = parse(second.stdout);
    expect(second.code).toBe(1);
    expect(out.corpusReplayed).toBe(1);
    expect(out.failedAtRun).toBe(1);
    expect(out.runs).toBe(1);
  });

  it('--json prints one parseable object with the report paths', async () => {
    const dir = tempDir();
    const r = await runCli(['check', fixture('level.ts'), '--seed', '5', '--runs', '10', '--json', '--properties', 'convergence,idempotence'], { cwd: dir });
    expect(r.code).toBe(0);
    const out = parse(r.stdout);
    expect(out).toMatchObject({ ok: true, controller: 'level-triggered', runs: 10, seed: 5 });
    expect(out.reports['markdown']).toBe('reports/level-triggered-pass.md');
  });

  it('the shards of one seed together are exactly the unsharded check', async () => {
    const dir = tempDir();
    const args = ['check', fixture('level.ts'), '--seed', '11', '--runs', '30', '--json', '--faults', 'event-loss,duplication,delay', '--properties', SOUND];
    // one after the other: checks in this thread patch its globals for the length of each run
    const whole = await checkInProcess(args, join(dir, 'reports'));
    const shards: Awaited<ReturnType<typeof runCliInProcess>>[] = [];
    for (const i of [1, 2, 3]) shards.push(await checkInProcess([...args, '--shard', `${i}/3`], join(dir, `reports-${i}`)));
    const w = parse(whole.stdout);
    const s = shards.map((x) => parse(x.stdout));
    expect(s.map((x) => x.shard)).toEqual([
      { index: 0, count: 3 },
      { index: 1, count: 3 },
      { index: 2, count: 3 },
    ]);
    expect(s.map((x) => x.runs)).toEqual([10, 10, 10]);
    expect(s.reduce((n, x) => n + x.runs, 0)).toBe(w.runs);
    expect(s.reduce((n, x) => n + x.stats.reconciles, 0)).toBe(w.stats.reconciles);
    for (const c of w.coverage) {
      const sum = (k: 'enabled' | 'injected' | 'changedBehaviour') => s.reduce((n, x) => n + (x.coverage.find((y) => y.kind === c.kind)?.[k] ?? 0), 0);
      expect({ kind: c.kind, enabled: sum('enabled'), injected: sum('injected'), changedBehaviour: sum('changedBehaviour') }).toEqual(c);
    }
  }, 180_000);

  it('--workers 2 runs the same scenarios as one thread: same totals when passing, same minimal failure when failing', async () => {
    const dir = tempDir();
    const pass = ['check', fixture('level.ts'), '--seed', '21', '--runs', '24', '--json', '--faults', 'event-loss,reordering', '--properties', SOUND];
    const fail = ['check', fixture('edge.ts'), '--seed', '1', '--runs', '30', '--json', '--faults', 'event-loss'];
    const [p1, p2] = await Promise.all([runCli(pass, { cwd: dir }), runCli([...pass, '--workers', '2', '--report-dir', 'r2'], { cwd: dir })]);
    const [a, b] = [parse(p1.stdout), parse(p2.stdout)];
    expect(b.runs).toBe(a.runs);
    expect(b.stats.reconciles).toBe(a.stats.reconciles);
    expect(b.coverage).toEqual(a.coverage);
    const [f1, f2] = await Promise.all([runCli(fail, { cwd: tempDir() }), runCli([...fail, '--workers', '2'], { cwd: tempDir() })]);
    const [x, y] = [parse(f1.stdout), parse(f2.stdout)];
    expect(f2.code).toBe(1);
    expect(y.property).toBe(x.property);
    expect(y.failedAtRun).toBe(x.failedAtRun);
    expect(y.traceHash).toBe(x.traceHash);
  }, 180_000);

  it('loads the checked module only in the worker threads that run it, never in the thread that writes the verdict (--workers 0: in that thread)', async () => {
    const args = ['check', fixture('where-loaded.ts'), '--seed', '3', '--runs', '6', '--properties', SOUND];
    const [one, two, none] = await Promise.all([runCli(args, { cwd: tempDir() }), runCli([...args, '--workers', '2'], { cwd: tempDir() }), runCli([...args, '--workers', '0'], { cwd: tempDir() })]);
    const loads = (stderr: string): string[] => stderr.match(/^where-loaded: .*$/gm) ?? [];
    for (const r of [one, two, none]) expect(r.code, r.stderr).toBe(0);
    expect(loads(one.stderr)).toEqual(['where-loaded: worker thread']);
    expect(loads(two.stderr)).toEqual(['where-loaded: worker thread', 'where-loaded: worker thread']);
    expect(loads(none.stderr)).toEqual(['where-loaded: main thread']);
  }, 180_000);

  it("writes a failure's reports identically from a worker thread and from this thread, timelines included (the worker that failed records them)", async () => {
    // the worker thread's: the check of the failure test above (same command line, fresh folder)
    const b = tempDir();
    const [{ dir: a, run: w1 }, w0] = await Promise.all([edgeFailureRun(), runCli([...EDGE_FAILURE, '--workers', '0'], { cwd: b })]);
    expect([w1.code, w0.code]).toEqual([1, 1]);
    const html = (dir: string): string => readFileSync(join(dir, 'reports', 'edge-triggered-convergence-1.html'), 'utf8');
    expect(html(a)).toBe(html(b));
    // the convergence predicate's series over the replay, and the object's desired/actual timeline
    expect(html(a)).toMatch(/"converged":\{"t":\[0,/);
    expect(html(a)).toMatch(/"objects":\[\{/);
  }, 180_000);
});

describe('loading TypeScript modules', () => {
  it("shares one copy of steadystate with the user's module (tsx register, not tsImport)", async () => {
    // the fixture imports 'steadystate' by name and checks `instanceof` on the store's errors;
    // run from the project root, where the package name resolves to these sources
    const r = await runCli(['check', fixture('shared-copy.ts'), '--runs', '10', '--seed', '1', '--faults', 'event-loss', '--properties', 'convergence', '--report-dir', join(tempDir(), 'reports')], { cwd: root });
    expect(r.stdout, r.stdout).not.toMatch(/two copies of steadystate/);
    expect(r.code).toBe(0);
  });
});

// `steadystate demo` (every bundled example through the harness, the fixed twins at 10 runs) runs
// from the build in package.test.ts; bug-zoo.test.ts runs the exhibits in full
