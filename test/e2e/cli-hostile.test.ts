import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, hotLoopModule, runCli, runCliInProcess, tempDir } from './cli-helpers.js';

/**
 * Holes a red team found in stop 40, each closed: a module that is buggy (a hot loop, or an
 * off-by-one observedGeneration) must never get exit 0 from `steadystate check` or `replay`,
 * whatever it does at import or from its reconcile. Fixtures in cli-fixtures/hostile/.
 */
const hostile = (name: string) => fixture(join('hostile', `${name}.ts`));

// CI budget: the suites whose tests only start child processes run their tests concurrently, and a
// test's independent child processes run side by side (a shorter file, where a CPU is free; the
// same CPU time); tests that run the CLI in-process (this thread's globals) stay one at a time. A
// test that shares the CPUs with its neighbours gets more time than vitest's default minute.
const CONCURRENT_TIMEOUT = 180_000;

describe.concurrent('steadystate check on modules that tamper with the harness (red team, stop 40)', () => {
  it('swapping the property catalogue for look-alikes at import is refused: the catalogue is frozen (exit 2)', async () => {
    const r = await runCli(['check', hostile('patch-catalogue'), '--runs', '2', '--seed', '1', '--workers', '0']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/Cannot assign to read only property/);
  }, CONCURRENT_TIMEOUT);

  it('a replaced array iterator that empties the judges is refused at load, checkOptions.properties: [] judges nothing: exit 2, never a pass', async () => {
    const cases = [
      ['iter-patch', /replaced built-ins at import: Array\.prototype\.values, Array\.prototype\[Symbol\.iterator\]/],
      ['empty-properties', /no property was judged/],
    ] as const;
    const runs = await Promise.all(cases.map(([name]) => runCli(['check', hostile(name), '--runs', '2', '--seed', '1', '--workers', '0'])));
    for (const [i, [name, message]] of cases.entries()) {
      const r = runs[i]!;
      expect(r.code, `${name}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).not.toMatch(/PASS/);
    }
  }, CONCURRENT_TIMEOUT);

  it('a reconcile that reaches the store through ctx to undo its bug cannot: ctx holds the instance in a JS-private field (exit 1)', async () => {
    const r = await runCli(['check', hostile('ctx-internals'), '--controller', 'cheats', '--runs', '5', '--seed', '1', '--workers', '0']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/FAIL cheats fails convergence/);
  }, CONCURRENT_TIMEOUT);

  it('process.emit wrapped, or process.reallyExit and process.stdout._write replaced at import, in this thread: the verdict and its exit code stand, for check and replay', async () => {
    await Promise.all(
      ['emit-exit', 'forges-stdout'].map(async (name) => {
        const dir = tempDir();
        const r = await runCli(['check', hostile(name), '--runs', '2', '--seed', '1', '--shrink-time-limit', '200', '--workers', '0', '--report-dir', dir]);
        expect(r.code, `${name}: ${r.stderr}`).toBe(1);
        expect(r.stdout).toMatch(new RegExp(`FAIL ${name} fails no-hot-loop`));
        if (name === 'emit-exit') return;
        const replay = await runCli(['replay', join(dir, `${name}-no-hot-loop-1.json`)]);
        expect(replay.code, `${name} replay: ${replay.stderr}`).toBe(1);
        expect(replay.stdout).toMatch(new RegExp(`FAIL ${name} still fails no-hot-loop`));
      }),
    );
  }, CONCURRENT_TIMEOUT);
});

describe.concurrent('steadystate replay tells a fix from a controller that behaves differently when replayed (red team H5, stop 41)', () => {
  it('a controller that is buggy except when it runs in the main thread (replay; the check runs it in a worker): the same code with a different run fails the replay (exit 1), it is not "fixed"', async () => {
    const dir = tempDir();
    const r = await runCli(['check', fixture(join('hostile', 'detects-replay.ts')), '--runs', '2', '--seed', '1', '--shrink-time-limit', '200', '--report-dir', dir]);
    expect(r.code, r.stderr).toBe(1);
    const file = join(dir, 'detects-replay-no-hot-loop-1.json');
    expect(JSON.parse(readFileSync(file, 'utf8')).controller.source.codeDigest).toMatchObject({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/), files: expect.any(Number) });
    const [replay, json] = await Promise.all([runCli(['replay', file]), runCli(['replay', file, '--json'])]);
    expect(replay.code, replay.stderr).toBe(1);
    expect(replay.stdout).toMatch(/FAIL detects-replay passes this replay, but the code is unchanged since the check/);
    expect(replay.stdout).not.toMatch(/so the code changed/);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, sameTrace: false, sameCode: true });
  }, CONCURRENT_TIMEOUT);

  it('the same controller really fixed after the check: its replay passes with --fixed (exit 0), and without the flag exits 1 asking for it (red team F5, stop 43)', async () => {
    const dir = tempDir();
    const path = hotLoopModule(dir, '', 'false');
    const r = await runCli(['check', path, '--runs', '2', '--seed', '1', '--shrink-time-limit', '200', '--workers', '0', '--report-dir', dir], { cwd: dir });
    expect(r.code, r.stderr).toBe(1);
    const file = join(dir, 'web-no-hot-loop-1.json');
    hotLoopModule(dir, '', 'true');
    const [replay, unflagged] = await Promise.all([runCli(['replay', file, '--fixed'], { cwd: dir }), runCli(['replay', file], { cwd: dir })]);
    expect(replay.code, replay.stdout + replay.stderr).toBe(0);
    expect(replay.stdout).toMatch(/so the code changed since the report was written/);
    expect(replay.stdout).toMatch(/PASS web now satisfies no-hot-loop on this scenario \(on code you changed since the check: --fixed\)/);
    // code can rewrite its own files: a pass on other code than the check's is a fix only when the user says so
    expect(unflagged.code, unflagged.stdout + unflagged.stderr).toBe(1);
    expect(unflagged.stdout).toMatch(/FAIL web now satisfies no-hot-loop on this scenario, but the code differs from the code the check ran .*pass --fixed to say so/);
  }, CONCURRENT_TIMEOUT);

  it('a module that edits its own file during the check and behaves when replayed: no replay can call that a fix (exit 1)', async () => {
    const dir = tempDir();
    const path = hotLoopModule(dir, `import { appendFileSync } from 'node:fs';\nimport { isMainThread } from 'node:worker_threads';\nif (!isMainThread) appendFileSync(new URL(import.meta.url), '\\n// touched');`, 'isMainThread');
    const r = await runCli(['check', path, '--runs', '2', '--seed', '1', '--shrink-time-limit', '200', '--report-dir', dir], { cwd: dir });
    expect(r.code, r.stderr).toBe(1);
    const file = join(dir, 'web-no-hot-loop-1.json');
    expect(JSON.parse(readFileSync(file, 'utf8')).controller.source.codeDigest.changedDuringCheck).toBe(true);
    const replay = await runCli(['replay', file], { cwd: dir });
    expect(replay.code, replay.stdout + replay.stderr).toBe(1);
    expect(replay.stdout).toMatch(/changed its own files while the check ran/);
  }, CONCURRENT_TIMEOUT);
});

describe('steadystate check ends the processes the checked code started (red team H6, stop 41)', () => {
  it('a detached process started at import that would rewrite the shard result after the CLI exits is ended with the check: merge still fails (exit 1)', async () => {
    const dir = tempDir();
    // the two shard jobs of a CI matrix, side by side (each its own CLI, forger and report folder)
    const shards = await Promise.all(['1/2', '2/2'].map((shard) => runCli(['check', fixture(join('hostile', 'forges-shard.ts')), '--runs', '4', '--shrink-time-limit', '200', '--seed', '7', '--shard', shard, '--report-dir', join(dir, `s${shard[0]}`)], { cwd: dir })));
    for (const r of shards) expect(r.code, r.stderr.split('\n').filter((l) => !l.startsWith('steadystate check forges-shard:')).join('\n')).toBe(1);
    // the forger polled every 100 ms for the CLI to be gone
    await new Promise((r) => setTimeout(r, 1500));
    // merge only reads the shard folders: in-process (no module is loaded)
    const merged = await runCliInProcess(['merge', 's1', 's2', '--report-dir', 'merged'], dir);
    expect(merged.code, merged.stdout + merged.stderr).toBe(1);
    expect(merged.stdout).toMatch(/FAIL forges-shard fails no-hot-loop/);
  });
});

describe('red team, stop 41: a buggy or sloppy module never gets exit 0', () => {
  it('N1: Array.prototype.push replaced at import to drop failure records is refused at load (exit 2), in a worker and in this thread', async () => {
    const runs = await Promise.all(['1', '0'].map((workers) => runCli(['check', hostile('push-patch'), '--runs', '2', '--seed', '1', '--workers', workers])));
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/replaced built-ins at import: Array\.prototype\.push/);
    }
  });

  it('N5: the saved native exit cannot be swapped: originals is frozen, so the module fails to load (exit 2)', async () => {
    const r = await runCli(['check', hostile('originals-exit'), '--runs', '2', '--seed', '1', '--workers', '0']);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(/Cannot assign to read only property 'reallyExit'/);
  });

  it('N6: a controller no object ever reaches (its `for`, or checkOptions.objects.kind with a typo) is not a pass (exit 2)', async () => {
    const wrong = await runCliInProcess(['check', hostile('sloppy'), '--controller', 'wrongKind', '--runs', '3', '--seed', '1', '--workers', '0', '--report-dir', join(tempDir(), 'r')], tempDir());
    expect(wrong.code, wrong.stdout + wrong.stderr).toBe(2);
    expect(wrong.stderr).toMatch(/no reconcile ran in 3 runs: no Deployment object ever reached the controller/);
    const typo = await runCliInProcess(['check', hostile('kind-typo-options'), '--runs', '3', '--seed', '1', '--workers', '0', '--report-dir', join(tempDir(), 'r')], tempDir());
    expect(typo.code, typo.stdout + typo.stderr).toBe(2);
    expect(typo.stderr).toMatch(/no reconcile ran/);
  });

  it('N8, N10: a shard with no run to make is refused, and a refused shard leaves no earlier shard result behind for merge', async () => {
    const dir = tempDir();
    const first = await runCliInProcess(['check', hostile('sloppy'), '--controller', 'swallows', '--runs', '2', '--seed', '1', '--workers', '0', '--shard', '2/2', '--report-dir', join(dir, 's')], tempDir());
    expect(first.code, first.stderr).not.toBe(2);
    expect(existsSync(join(dir, 's', 'shard-result.json'))).toBe(true);
    const none = await runCliInProcess(['check', hostile('sloppy'), '--controller', 'swallows', '--runs', '2', '--seed', '1', '--workers', '0', '--shard', '3/3', '--report-dir', join(dir, 's')], tempDir());
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--shard 3\/3 of a check of 2 runs has no run to make/);
    expect(existsSync(join(dir, 's', 'shard-result.json'))).toBe(false);
  });

  it('N2, N3: a reconcile that swaps Array.prototype.push around its own write (hiding it), or Map.prototype.get to catch the store, fails the run at that client call (exit 1)', async () => {
    const cases = [
      ['hide-writes', 'Array.prototype.push'],
      ['map-capture', 'Map.prototype.get'],
    ] as const;
    const runs = await Promise.all(cases.map(([name]) => runCli(['check', hostile(name), '--runs', '3', '--seed', '1', '--shrink-time-limit', '200', '--workers', '0'])));
    for (const [i, [name, builtin]] of cases.entries()) {
      const r = runs[i]!;
      expect(r.code, `${name}: ${r.stdout}${r.stderr}`).toBe(1);
      expect(r.stdout).toContain(`replaced the built-in ${builtin}`);
    }
  });

  it('N11: --controller naming one export and another controller is ambiguous (exit 2), not a guess', async () => {
    const r = await runCliInProcess(['check', hostile('two-names'), '--controller', 'web', '--runs', '2', '--seed', '1', '--workers', '0', '--report-dir', join(tempDir(), 'r')], tempDir());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--controller web is ambiguous/);
  });
});
