import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { failureOf } from '../helpers/failure-of.js';
import '../../src/vitest/index.js';
import { check } from '../../src/check.js';
import { writeReports } from '../../src/report/index.js';
import { junit } from '../../src/report/junit.js';
import { toReportModel } from '../../src/report/result.js';
import { eventLoss } from '../../faults/index.js';
import { convergence } from '../../properties/convergence.js';
import { recovery } from '../../properties/recovery.js';
import { edgeTriggered } from '../../examples/replicas/edge-triggered.js';
import { levelTriggered } from '../../examples/replicas/level-triggered.js';
import { fixture, runCli, tempDir } from './cli-helpers.js';

/**
 * No silent cross-talk (issue 15): a failure replayed from the regression corpus is announced in
 * every surface, counters say what they count, and JUnit passes only what was judged.
 */

const objects = { kind: 'ReplicaSet', spec: [{ replicas: 3 }], status: { replicas: 0 } };
const options = { objects, faults: [eventLoss], properties: [convergence()] };


describe('a failure replayed from the corpus', () => {
  it('is announced by the matcher, the Markdown, the HTML and JUnit, with the file it came from', async () => {
    const dir = tempDir();
    // an earlier check with another seed saves its failure to the corpus
    await failureOf(expect(edgeTriggered).toPassCheck({ ...options, runs: 30, seed: 1, reportDir: dir }));
    const message = await failureOf(expect(edgeTriggered).toPassCheck({ ...options, runs: 30, seed: 7, reportDir: dir }));
    expect(message).toMatch(/fails convergence \(corpus entry 1 of 1 \(.*corpus\/edge-triggered\/convergence-[0-9a-f]{8}\.json\), replayed before the generated runs, seed 7/);
    expect(message).toMatch(/Note: replayed .*convergence-[0-9a-f]{8}\.json first, a failing scenario an earlier check saved to the regression corpus: it still fails, so the check stopped there and no generated run of seed 7 ran/);
    const md = readFileSync(`${dir}/edge-triggered-convergence-7.md`, 'utf8');
    expect(md).toMatch(/> \*\*Note:\*\* replayed .*convergence-[0-9a-f]{8}\.json first/);
    expect(md).toMatch(/found at corpus entry 1 of 1/);
    expect(readFileSync(`${dir}/edge-triggered-convergence-7.html`, 'utf8')).toMatch(/Note:<\/strong> replayed .*convergence-[0-9a-f]{8}\.json first/);
    expect(readFileSync(`${dir}/edge-triggered-convergence-7.junit.xml`, 'utf8')).toMatch(/Note: replayed .*first/);
  });

  it('the CLI says so too, and a pass says the corpus replays passed', async () => {
    const cwd = tempDir();
    const first = await runCli(['check', fixture('edge.ts'), '--seed', '1', '--runs', '30', '--faults', 'event-loss', '--properties', 'convergence'], { cwd });
    expect(first.code).toBe(1);
    const second = await runCli(['check', fixture('edge.ts'), '--seed', '99', '--runs', '30', '--faults', 'event-loss', '--properties', 'convergence'], { cwd });
    expect(second.code).toBe(1);
    expect(second.stdout).toMatch(/fails convergence \(corpus entry 1 of 1 \(reports\/corpus\/edge-triggered\/convergence-[0-9a-f]{8}\.json\), replayed before the generated runs, seed 99/);
    expect(second.stdout).toMatch(/Note: replayed reports\/corpus\/edge-triggered\/convergence-[0-9a-f]{8}\.json first/);
    const json = await runCli(['check', fixture('edge.ts'), '--seed', '99', '--runs', '30', '--faults', 'event-loss', '--properties', 'convergence', '--json'], { cwd });
    expect(JSON.parse(json.stdout)).toMatchObject({ corpusReplayed: 1, corpusNote: expect.stringMatching(/^replayed reports\/corpus/) });
  }, 120_000);

  it('a pass reports the corpus replays that passed', async () => {
    const found = await check(edgeTriggered, { ...options, runs: 30, seed: 1 });
    if (found.ok) throw new Error('the edge-triggered controller should fail');
    // the level-triggered fix of the same controller passes the saved scenario
    const saved = { ...found.scenario, controllers: [{ name: 'level-triggered' }] };
    const r = await check(levelTriggered, { ...options, runs: 5, seed: 1, corpus: { scenarios: [saved], names: ['x.json'] } });
    expect(r.ok).toBe(true);
    expect(toReportModel(r).corpusNote).toBe('replayed 1 regression corpus entry (failures earlier checks saved) before the generated runs: it passes.');
  });
});

describe('counters mean what they say', () => {
  it('"run N of M" counts the runs the check planned, not the ones it made before stopping', async () => {
    const r = await check(edgeTriggered, { ...options, runs: 50, seed: 1 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.plannedRuns).toBe(50);
    const m = toReportModel(r);
    expect(m.ok ? '' : m.failedAt).toBe(`run ${r.failedAtRun} of 50`);
  });
});

describe('JUnit', () => {
  it('has real times and marks a property that judged no run as skipped, with why', async () => {
    // no run has a revert: recovery cannot judge any of them
    const r = await check(levelTriggered, { objects, faults: [eventLoss], properties: [convergence(), recovery()], runs: 5, seed: 1, maxActions: 0 });
    expect(r.ok).toBe(true);
    expect(r.propertyRuns).toEqual([
      expect.objectContaining({ name: 'convergence', judged: 5, unjudged: 0 }),
      expect.objectContaining({ name: 'recovery', judged: 0, unjudged: 5, reason: expect.any(String) }),
    ]);
    const xml = junit(toReportModel(r));
    expect(xml).toMatch(/<testsuites name="steadystate" tests="2" failures="0" errors="0" skipped="1" time="\d+\.\d{3}">/);
    expect(xml).toMatch(/<testcase name="recovery" classname="steadystate\.level-triggered" time="\d+\.\d{3}">\n {6}<skipped message="judged none of the 5 runs it saw: /);
    expect(xml).toMatch(/<testcase name="convergence" classname="steadystate\.level-triggered" time="\d+\.\d{3}"\/>/);
    expect(xml).not.toMatch(/time="0"/);
    const { files } = writeReports(r, { dir: tempDir(), formats: ['junit'] });
    expect(readFileSync(files.junit!, 'utf8')).toBe(xml);
  });
});
