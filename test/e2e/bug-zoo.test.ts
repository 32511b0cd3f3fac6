import { afterAll, describe, expect, it } from 'vitest';
import { allFaults, check, type CheckFailed, type FaultModule, type Property } from '../../src/index.js';
import { defaultProperties } from '../../properties/index.js';
import { bugZoo, type BugZooEntry } from '../../examples/bug-zoo/index.js';

/**
 * The bug zoo through `check` (SPEC §1, §5; examples/bug-zoo/): with every built-in fault kind
 * under swarm testing, each buggy controller is caught by the property that names its bug and
 * shrunk to at most 3 fault events, and each fixed twin passes 120 runs judged by every property.
 * A fixed seed makes each check replay exactly; the table printed at the end records how many
 * runs each bug took to find and how small its reproduction got.
 */
const SEED = 1;
/** Runs allowed to find a bug: a bug the zoo cannot find in this many is a finding in itself. */
const BUGGY_RUNS = 300;
// 120, not 500 (stops 38 and 44: CI's time); the hunts judge the fixed twins over thousands of runs
const CORRECT_RUNS = 120;

/** Every fault kind, the exhibit's own first (the swarm's event budget goes to kinds in order). */
function faultsFor(entry: BugZooEntry): FaultModule[] {
  return [...entry.extraFaults, ...allFaults];
}

/** Every built-in property, with the exhibit's configured ones in place of the defaults of the same name. */
function everyProperty(entry: BugZooEntry): Property[] {
  const own = new Map(entry.properties.map((p) => [p.name, p]));
  return defaultProperties().map((p) => own.get(p.name) ?? p);
}

interface Row {
  bug: string;
  property: string;
  foundAtRun: number;
  faultEvents: number;
  actions: number;
  shrinks: number;
  buggyMs: number;
  correctRuns: number;
  correctMs: number;
}
const rows = new Map<string, Partial<Row>>();
const row = (name: string) => rows.get(name) ?? rows.set(name, { bug: name }).get(name)!;

afterAll(() => {
  const lines = [...rows.values()].map(
    (r) => `${(r.bug ?? '').padEnd(22)} ${(r.property ?? '-').padEnd(30)} found at run ${String(r.foundAtRun ?? '-').padStart(3)}, shrunk to ${r.faultEvents ?? '-'} fault event(s) + ${r.actions ?? '-'} action(s) in ${r.shrinks ?? '-'} steps (${r.buggyMs ?? '-'} ms); fixed twin: ${r.correctRuns ?? '-'} runs passed (${r.correctMs ?? '-'} ms)`,
  );
  console.log(`bug zoo (seed ${SEED}):\n${lines.join('\n')}`);
});

function describeFailure(r: CheckFailed): string {
  return `${r.property}: ${r.summary}\n${r.explanation}\nshrunk scenario: ${JSON.stringify(r.scenario)}`;
}

describe('bug zoo under check', () => {
  for (const entry of bugZoo) {
    describe(entry.name, () => {
      it(`catches the buggy version with ${entry.caughtBy}, shrunk to at most 3 fault events`, { timeout: 120_000 }, async () => {
        const t0 = performance.now();
        const r = await check(entry.buggy, { ...entry.options, faults: faultsFor(entry), properties: [entry.property()], runs: BUGGY_RUNS, seed: SEED });
        const ms = Math.round(performance.now() - t0);
        expect(r.ok, `no failure in ${BUGGY_RUNS} runs`).toBe(false);
        if (r.ok) return;
        const faultEvents = r.scenario.faults.events.length + r.scenario.faults.background.length;
        Object.assign(row(entry.name), { property: r.property, foundAtRun: r.failedAtRun, faultEvents, actions: r.scenario.workload.length, shrinks: r.shrinks, buggyMs: ms });
        expect(r.property, describeFailure(r)).toBe(entry.caughtBy);
        expect(faultEvents, describeFailure(r)).toBeLessThanOrEqual(3);
        expect(r.determinism.ok).toBe(true);
        expect(r.explanation).toMatch(/^Let: /);
      });

      it(`passes ${CORRECT_RUNS} runs with every property under swarm faults once fixed`, { timeout: 300_000 }, async () => {
        const t0 = performance.now();
        const r = await check(entry.correct, { ...entry.options, faults: faultsFor(entry), properties: everyProperty(entry), runs: CORRECT_RUNS, seed: SEED });
        Object.assign(row(entry.name), { correctRuns: r.runs, correctMs: Math.round(performance.now() - t0) });
        expect(r.ok ? 'passed' : describeFailure(r)).toBe('passed');
        expect(r.runs).toBe(CORRECT_RUNS);
      });
    });
  }
});
