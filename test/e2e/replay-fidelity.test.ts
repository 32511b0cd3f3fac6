import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { failureOf } from '../helpers/failure-of.js';
import '../../src/vitest/index.js';
import { check } from '../../src/check.js';
import { replay } from '../../src/replay.js';
import { parseReproductionFile, type ReproductionFile } from '../../src/report/json.js';
import { writeReports } from '../../src/report/index.js';
import { convergence } from '../../properties/convergence.js';
import { noHotLoop } from '../../properties/no-hot-loop.js';
import { root, runCli, tempDir } from './cli-helpers.js';
import { buggySyncer, checkOptions, fixedSyncer } from './replay-fixtures/syncer.js';

/**
 * Replays that cannot lie (issue 15): a reproduction records what the check ran with, and a
 * replay that lacks or changes a recorded input fails and names it, whatever the controller does.
 * The false green this guards against: the buggy controller's reproduction replayed without the
 * check's downstream service "passed" (every reconcile threw before the hot loop could start).
 */

const options = { ...checkOptions, runs: 1, seed: 7, faults: [], properties: [noHotLoop()], shrink: false as const, coverage: false };

let recorded: Promise<{ file: ReproductionFile; path: string }> | undefined;
function reproduction(): Promise<{ file: ReproductionFile; path: string }> {
  return (recorded ??= record());
}

async function record(): Promise<{ file: ReproductionFile; path: string }> {
  const result = await check(buggySyncer, options);
  expect(result.ok).toBe(false);
  const { files } = writeReports(result, { dir: tempDir(), formats: ['json'] });
  return { file: parseReproductionFile(readFileSync(files.json!, 'utf8'), files.json!), path: files.json! };
}


describe('a replay without the inputs the check ran with', () => {
  it('fails and names the missing downstream service, for the buggy and for the fixed controller', async () => {
    const { file } = await reproduction();
    for (const controller of [buggySyncer, fixedSyncer]) {
      const r = await replay(controller, file);
      expect(r.ok).toBe(false);
      expect(r.mismatches.join('\n')).toMatch(/recorded with downstream service records-api \(https:\/\/records\.example\/v1\); this replay has none/);
    }
  });

  it('with the same options: the buggy controller still fails on the identical trace, the fixed one passes', async () => {
    const { file } = await reproduction();
    const buggy = await replay(buggySyncer, file, checkOptions);
    expect(buggy).toMatchObject({ ok: false, sameTrace: true, mismatches: [] });
    const fixed = await replay(fixedSyncer, file, checkOptions);
    expect(fixed).toMatchObject({ ok: true, sameTrace: false, mismatches: [] });
  });

  it('an option added to the property since the reproduction was written is no difference at its default; set otherwise, it is', async () => {
    const { file } = await reproduction();
    // as a version without `quietAfterMs` would have written it (digests dropped: the file is edited on purpose)
    const { digests: _d, ...rest } = file;
    const older: ReproductionFile = structuredClone({ ...rest, inputs: { ...file.inputs!, properties: file.inputs!.properties.map((p) => (p.name === 'no-hot-loop' ? { ...p, options: Object.fromEntries(Object.entries(p.options).filter(([k]) => k !== 'quietAfterMs')) } : p)) } });
    expect(await replay(buggySyncer, older, checkOptions)).toMatchObject({ ok: false, sameTrace: true, mismatches: [] });
    const r = await replay(buggySyncer, older, { ...checkOptions, properties: [noHotLoop({ quietAfterMs: 3000 })] });
    expect(r.mismatches.join('\n')).toMatch(/no-hot-loop with quietAfterMs null; this replay has 3000/);
  });

  it('names every recorded input that differs: tail length, read tracing, property options, a predicate given as code', async () => {
    const { file } = await reproduction();
    const r = await replay(buggySyncer, file, { ...checkOptions, tailMs: 9_000, traceReads: false, properties: [noHotLoop({ maxWrites: 5 })] });
    expect(r.ok).toBe(false);
    const m = r.mismatches.join('\n');
    expect(m).toMatch(/tailMs 4000; this replay has 9000/);
    expect(m).toMatch(/traceReads true; this replay has false/);
    expect(m).toMatch(/no-hot-loop with maxWrites 0; this replay has 5/);

    const custom = await check(buggySyncer, { ...options, properties: [convergence({ converged: () => true }), noHotLoop()] });
    expect(custom.ok).toBe(false);
    const { files } = writeReports(custom, { dir: tempDir(), formats: ['json'] });
    const f2 = parseReproductionFile(readFileSync(files.json!, 'utf8'), files.json!);
    expect(f2.inputs!.properties.find((p) => p.name === 'convergence')?.options['converged']).toBe('<function>');
  });

  it('records what is data and names what is code', async () => {
    const { file } = await reproduction();
    expect(file.inputs).toMatchObject({
      properties: [{ name: 'no-hot-loop', options: { maxWrites: 0 } }],
      faults: [],
      tailMs: 4_000,
      traceReads: true,
      downstream: { services: [{ name: 'records-api', baseUrl: 'https://records.example/v1' }], handlers: 0 },
    });
    expect(file.scenario.options).toMatchObject({ faultWindowMs: 2_000, settleMs: 3_000 });
    expect(file.traceHash).toMatch(/^[0-9a-f]{8}$/);
    expect(file.code.join('\n')).toMatch(/downstream factory/);
  });
});

describe('toPassReproduction', () => {
  it('never passes without the recorded inputs, and says which one is missing', async () => {
    const { path } = await reproduction();
    const message = await failureOf(expect(fixedSyncer).toPassReproduction(path));
    expect(message).toMatch(/recorded with downstream service records-api/);
    await expect(fixedSyncer).toPassReproduction(path, checkOptions);
    expect(await failureOf(expect(buggySyncer).toPassReproduction(path, checkOptions))).toMatch(/still fails no-hot-loop/);
  });
});

describe('steadystate replay', () => {
  it("loads the module's checkOptions itself, and fails naming the downstream when the module has none", async () => {
    const cwd = tempDir();
    const mod = `${root}/test/e2e/replay-fixtures/syncer-module.ts`;
    const check = await runCli(['check', mod, '--runs', '1', '--seed', '7', '--properties', 'no-hot-loop', '--faults', 'event-loss'], { cwd });
    expect(check.code, check.stdout + check.stderr).toBe(1);
    const report = /Replay: npx steadystate replay (\S+\.json)/.exec(check.stdout)![1]!;
    const same = await runCli(['replay', report], { cwd });
    expect(same.stdout).toContain('identical trace');
    expect(same.stdout).toContain('still fails no-hot-loop');
    const bare = await runCli(['replay', report, '--module', `${root}/test/e2e/replay-fixtures/syncer-bare.ts`], { cwd });
    expect(bare.code).toBe(1);
    expect(bare.stdout).toContain('FAIL this replay does not run what the check ran, so it cannot pass:\n');
    expect(bare.stdout).toContain('  - recorded with downstream service records-api (https://records.example/v1); this replay has none\n');
    expect(bare.stdout).toMatch(/Export the options the check ran with as checkOptions from .*syncer-bare\.ts; the check took them from the export checkOptions of .*syncer-module\.ts/);
  }, 60_000);
});
