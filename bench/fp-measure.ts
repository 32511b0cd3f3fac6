/**
 * Measuring the false-positive rate of one correct target over one seed: every generated run
 * judged by every property, each failing run classified by fault-kind ablation and by the
 * realism law. Shared by bench/hunt-fp-rate.ts (in-process targets) and bench/hunt-hosted.ts
 * (hosted programs).
 */
import { check, type RunRecord, type Scenario } from '../src/index.js';
import { resolveCheckOptions } from '../src/harness/check-options.js';
import { ScenarioRunner } from '../src/harness/scenario-runner.js';
import { recording } from './recording-property.js';
import { watchViolations } from '../test/helpers/realism.js';
import { faultsFor, propertiesFor, type Target } from './hunt-targets.js';

/** One failing property of one run. */
export interface Failure {
  property: string;
  summary: string;
}

/** One failing run, with what ablation found. */
export interface FailingRun {
  target: string;
  seed: number;
  run: number;
  failures: Failure[];
  /** Fault kinds in the run's plan. */
  kinds: string[];
  /** Per failing property: the kinds whose removal alone makes it pass ('none' when it fails without any fault). */
  causes: Record<string, string[]>;
  /** What the realism law (test/helpers/realism.ts, (a) and (b)) finds in the failing run's history: none means a real cluster produces it. */
  unrealistic: string[];
  scenario: Scenario;
}

export function kindsOf(s: Scenario): string[] {
  return [...new Set([...s.faults.events.map((e) => e.kind), ...s.faults.background.filter((b) => b.rate > 0).map((b) => b.kind)])].sort();
}

export function without(s: Scenario, kinds: readonly string[]): Scenario {
  return { ...s, faults: { events: s.faults.events.filter((e) => !kinds.includes(e.kind)), background: s.faults.background.filter((b) => !kinds.includes(b.kind)) } };
}

export async function measure(t: Target, seed: number, runs: number, ablation: boolean, search: 'swarm' | 'guided'): Promise<{ runs: number; mutants: number; failing: FailingRun[] }> {
  const properties = propertiesFor(t, []);
  const faults = faultsFor(t, []);
  const verdicts = new Map<RunRecord, Failure[]>();
  const order: RunRecord[] = [];
  const wrapped = properties.map((p) =>
    recording(p, (run, v) => {
      let list = verdicts.get(run);
      if (!list) {
        verdicts.set(run, (list = []));
        order.push(run);
      }
      if (!v.ok) list.push({ property: p.name, summary: v.summary });
    }),
  );
  const r = await check(t.controllers, { ...t.options, faults, properties: wrapped, runs, seed, search, shrink: false, determinism: false, coverage: false });
  const resolved = resolveCheckOptions(t.controllers, { ...t.options, faults, properties });
  const runner = new ScenarioRunner(
    { controllers: resolved.controllers, faults: resolved.faults, environment: resolved.environment.map((e) => e.actor), ...(resolved.downstream ? { downstream: resolved.downstream } : {}), tailMs: resolved.tailMs, traceReads: resolved.traceReads },
    properties,
  );
  const failing: FailingRun[] = [];
  for (const [i, run] of order.entries()) {
    const failures = verdicts.get(run)!;
    if (failures.length === 0) continue;
    const kinds = kindsOf(run.scenario);
    const causes: Record<string, string[]> = {};
    if (ablation) {
      for (const f of failures) {
        const only = properties.filter((p) => p.name === f.property);
        const fails = async (s: Scenario) => (await runner.judge(s, { properties: only })).failure !== undefined;
        if (kinds.length === 0 || (await fails(without(run.scenario, kinds)))) {
          causes[f.property] = ['none'];
          continue;
        }
        const found: string[] = [];
        for (const k of kinds) if (!(await fails(without(run.scenario, [k])))) found.push(k);
        causes[f.property] = found.length > 0 ? found : ['combination'];
      }
    }
    failing.push({ target: t.name, seed, run: i + 1, failures, kinds, causes, unrealistic: watchViolations(run.trace).slice(0, 3), scenario: run.scenario });
  }
  return { runs: r.runs, mutants: r.behaviour?.mutants ?? 0, failing };
}

export function count<T>(items: readonly T[], keys: (x: T) => string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of items) for (const k of new Set(keys(x))) m.set(k, (m.get(k) ?? 0) + 1);
  return new Map([...m].sort((a, b) => b[1] - a[1]));
}
