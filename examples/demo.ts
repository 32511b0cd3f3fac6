/**
 * `npm run demo`: the bundled examples through the full harness.
 * 1. The reference experiment of SPEC §9 (level- vs edge-triggered, 2000 trials each).
 * 2. The shrunk reproduction of the edge-triggered failure, with its reports.
 * 3. The bug zoo: each buggy controller found, named and shrunk by check (reports written);
 *    each fixed twin passing every property under swarm faults.
 */
import fc from 'fast-check';
import { allFaults, check, defaultProperties, faults, properties, type CheckFailed, type Property } from '../src/index.js';
import { bugZoo, type BugZooEntry } from './bug-zoo/index.js';
import { writeReports } from '../src/report/index.js';
import { recordTimelines } from '../src/replay.js';
import { edgeTriggered } from './replicas/edge-triggered.js';
import { formatRow, runReferenceExperiment, survivorBiasLine } from './replicas/experiment.js';
import { REPLICAS_KIND } from './replicas/replicas.js';

export interface DemoOptions {
  /** Trials per controller. @defaultValue 2000 */
  trials?: number;
  /** Where reports go. @defaultValue 'reports' */
  reportDir?: string;
  /** Output sink. @defaultValue console.log */
  print?: (line: string) => void;
  /** Runs per fixed zoo controller. @defaultValue 100 */
  zooRuns?: number;
}

/** Runs the demo; resolves to the number of unexpected outcomes (0 = all as expected). */
export async function runDemo(options: DemoOptions = {}): Promise<number> {
  const print = options.print ?? ((l: string) => console.log(l));
  const trials = options.trials ?? 2000;
  print('== reference experiment: target 3, ±1 per reconcile, 60 ticks, 30% of notifications lost');
  const t0 = performance.now();
  const rows = await runReferenceExperiment({ trials });
  for (const r of rows) print(formatRow(r));
  print(survivorBiasLine(rows[1]!));
  print(`elapsed: ${Math.round(performance.now() - t0)} ms for ${2 * trials} trials through the full stack`);
  let unexpected = 0;
  if (rows[0]!.converged !== trials) unexpected++;
  if (rows[1]!.converged === trials) unexpected++;

  print('');
  print('== the edge-triggered failure, found by check and shrunk');
  unexpected += await shrinkEdge(print, options.reportDir ?? 'reports');

  print('');
  print('== the bug zoo: every fault kind, swarm testing');
  unexpected += await runZoo(print, options.reportDir ?? 'reports', options.zooRuns ?? 100);
  return unexpected;
}

/** Every built-in property, with the exhibit's configured ones in place of the defaults. */
function everyProperty(entry: BugZooEntry): Property[] {
  const own = new Map(entry.properties.map((p) => [p.name, p]));
  return defaultProperties().map((p) => own.get(p.name) ?? p);
}

/** Each buggy exhibit caught and shrunk (reports written), each fixed twin passing. */
async function runZoo(print: (line: string) => void, reportDir: string, fixedRuns: number): Promise<number> {
  let unexpected = 0;
  for (const entry of bugZoo) {
    const faultsFor = [...entry.extraFaults, ...allFaults];
    const t0 = performance.now();
    const buggy = await check(entry.buggy, { ...entry.options, faults: faultsFor, properties: [entry.property()], runs: 300, seed: 1 });
    const fixed = await check(entry.correct, { ...entry.options, faults: faultsFor, properties: everyProperty(entry), runs: fixedRuns, seed: 1 });
    const ms = Math.round(performance.now() - t0);
    if (buggy.ok) {
      unexpected++;
      print(`${entry.name.padEnd(22)} NOT FOUND in 300 runs (expected ${entry.caughtBy})`);
    } else {
      const events = buggy.scenario.faults.events.length + buggy.scenario.faults.background.length;
      const written = writeReports(buggy, { dir: reportDir, formats: ['json', 'markdown', 'html'], baseName: `zoo-${entry.name}` });
      if (buggy.property !== entry.caughtBy) unexpected++;
      print(`${entry.name.padEnd(22)} caught by ${buggy.property.padEnd(28)} at run ${String(buggy.failedAtRun).padStart(3)}, shrunk to ${events} fault event(s) + ${buggy.scenario.workload.length} action(s) → ${written.files.markdown ?? ''}`);
    }
    if (!fixed.ok) {
      unexpected++;
      print(`${''.padEnd(22)} fixed twin FAILED ${fixed.property}: ${fixed.summary}`);
    } else {
      print(`${''.padEnd(22)} fixed twin: ${fixed.runs} runs, every property holds (${ms} ms for both)`);
    }
  }
  return unexpected;
}

/** check() on the edge-triggered controller under notification loss: the minimal reproduction. */
async function shrinkEdge(print: (line: string) => void, reportDir: string): Promise<number> {
  const t0 = performance.now();
  const result = await check(edgeTriggered, {
    seed: 1,
    runs: 100,
    faults: [faults.eventLoss],
    properties: [properties.convergence()],
    objects: { kind: REPLICAS_KIND, spec: fc.record({ replicas: fc.integer({ min: 1, max: 5 }) }), status: { replicas: 0 } },
  });
  if (result.ok) {
    print('unexpected: check did not find the edge-triggered bug');
    return 1;
  }
  const failed: CheckFailed = result;
  const ms = Math.round(performance.now() - t0);
  print(`${failed.property} failed at run ${failed.failedAtRun}; shrunk in ${failed.shrinks} steps (${ms} ms) to ${failed.scenario.faults.events.length} fault event(s):`);
  for (const e of failed.scenario.faults.events) print(`  ${JSON.stringify(e)}`);
  print(failed.explanation);
  const timelines = await recordTimelines(edgeTriggered, failed.scenario, { faults: [faults.eventLoss], properties: [properties.convergence()] }, failed.property);
  const written = writeReports(failed, { dir: reportDir, context: { source: { module: 'examples/replicas/edge-triggered.ts', exportName: 'edgeTriggered' }, objectTimelines: timelines.objects, converged: timelines.converged } });
  print(`reports: ${Object.values(written.files).join(', ')}`);
  // from a checkout (sources) the CLI is bin/steadystate.js; from an installed package it is npx steadystate
  const cli = import.meta.url.endsWith('.ts') ? 'node bin/steadystate.js' : 'npx steadystate';
  if (written.files.json) print(`replay: ${cli} replay ${written.files.json}`);
  return failed.scenario.faults.events.length === 1 ? 0 : 1;
}

const isMain = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  runDemo().then(
    (bad) => process.exit(bad === 0 ? 0 : 1),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
