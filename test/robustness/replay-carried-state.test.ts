import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import '../../src/vitest/index.js';
import { check } from '../../src/check.js';
import { replay } from '../../src/replay.js';
import { writeReports } from '../../src/report/index.js';
import { parseReproductionFile, type ReproductionFile } from '../../src/report/json.js';
import { noHotLoop } from '../../properties/no-hot-loop.js';
import { root, runCli, tempDir } from '../e2e/cli-helpers.js';
import { checkOptions, coldStart, steady, warmsUp } from './fixtures/warms-up.js';

/**
 * Session 6: a check runs many scenarios in one process, so a controller that keeps state in a
 * module-level variable may fail only after some runs. The reproduction then does not reproduce
 * in a fresh process, and its replay "passed" ("the code changed since the report was written")
 * although nothing changed. A replay whose trace differs now runs the scenario as many times as
 * the check had made, and a divergence makes it fail, naming the state kept between runs.
 */
const options = { ...checkOptions, properties: [noHotLoop()] };

async function reproduction(): Promise<ReproductionFile> {
  coldStart();
  const result = await check(warmsUp, options);
  expect(result.ok).toBe(false);
  const { files } = writeReports(result, { dir: tempDir(), formats: ['json'] });
  return parseReproductionFile(readFileSync(files.json!, 'utf8'), files.json!);
}

describe('a reproduction that needs state earlier runs left behind', () => {
  it('replay() in a fresh start does not pass: it names the run that diverged and the state kept between runs', async () => {
    const file = await reproduction();
    coldStart();
    const r = await replay(warmsUp, file, options);
    expect(r.ok).toBe(false);
    expect(r.sameTrace).toBe(false);
    expect(r.failure).toBeNull();
    expect(r.nondeterminism?.summary).toMatch(/the scenario gives different traces in this process .*, so this replay's pass proves nothing/);
    expect(r.nondeterminism?.explanation).toMatch(/runs 1 to \d+ gave the same trace \(hash \w+\), run \d+ a different one/);
    expect(r.nondeterminism?.explanation).toMatch(/state kept between runs: a module-level variable/);
    // the same failure in the same process: an honest replay of a failure
    const warm = await replay(warmsUp, file, options);
    expect(warm).toMatchObject({ ok: false, sameTrace: true, nondeterminism: null });
  });

  it('toPassReproduction neither passes nor fails, and says why', async () => {
    const file = await reproduction();
    coldStart();
    await expect(expect(warmsUp).toPassReproduction(file, options)).rejects.toThrow(/warms-up passes this replay, but the scenario gives different traces in this process/);
  });

  it('the controller without the warm-up passes the replay (its runs agree): no false alarm', async () => {
    const file = await reproduction();
    // renamed on purpose: without its digests (a replay refuses an edited file that has them)
    const { digests: _digests, ...unsigned } = file;
    const named = { ...unsigned, controller: { ...file.controller, name: 'steady' }, scenario: { ...file.scenario, controllers: file.scenario.controllers.map((c) => ({ ...c, name: 'steady' })) } };
    const r = await replay(steady, named, options);
    expect(r).toMatchObject({ ok: true, sameTrace: false, mismatches: [], nondeterminism: null });
  });

  it('steadystate replay in a fresh process exits 1 and says the pass proves nothing', async () => {
    const cwd = tempDir();
    const mod = `${root}/test/robustness/fixtures/warms-up.ts`;
    const checked = await runCli(['check', mod, '--controller', 'warmsUp', '--properties', 'no-hot-loop'], { cwd });
    expect(checked.code, checked.stdout + checked.stderr).toBe(1);
    const report = /Replay: npx steadystate replay (\S+\.json)/.exec(checked.stdout)![1]!;
    const replayed = await runCli(['replay', report], { cwd });
    expect(replayed.code, replayed.stdout + replayed.stderr).toBe(1);
    expect(replayed.stdout).toMatch(/FAIL warms-up passes this replay, but the scenario gives different traces in this process/);
    expect(replayed.stdout).toMatch(/state kept between runs: a module-level variable/);
  }, 60_000);
});
