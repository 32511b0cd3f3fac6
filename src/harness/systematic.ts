import fc from 'fast-check';
import type { ControllerDefinition } from '../runtime/define-controller.js';
import { emptyFaultPlan } from './fault-plan.js';
import { resolveCheckOptions, type CheckOptions } from './check-options.js';
import type { CheckFailed, CheckPassed, DeterminismReport } from './check-result.js';
import { CoverageTracker } from './coverage.js';
import { checkDeterminism } from './determinism.js';
import { minimize } from './minimize.js';
import type { RunRecord } from './property.js';
import type { EnvironmentRef, Scenario, WorkloadAction } from './scenario.js';
import { ScenarioRunner, type ScenarioOutcome } from './scenario-runner.js';
import { runStats, StatsCollector } from './stats.js';
import { ALL_STRATEGIES, derivePlans, STRATEGY_FAULT, type SystematicStrategy } from './systematic-plans.js';
import { templateKey } from '../arbitrary/workload.js';
import { parseKey, type NewObject } from '../store/object.js';

/** Options of {@link checkSystematic}: those of `check` that apply, plus the base scenarios and strategies. @public */
export interface SystematicOptions
  extends Pick<
    CheckOptions,
    'faults' | 'properties' | 'objects' | 'faultWindowMs' | 'settleMs' | 'tailMs' | 'scenarioOptions' | 'replicas' | 'environment' | 'downstream' | 'onProgress' | 'determinism' | 'shrink' | 'hostProbe'
  > {
  /**
   * Fault-free scenarios to derive plans from. @defaultValue one scenario per object template:
   * create an object, change its spec, change it back, re-apply it
   */
  scenarios?: Scenario | readonly Scenario[];
  /** Strategies to run. @defaultValue every strategy in {@link ALL_STRATEGIES} */
  strategies?: readonly SystematicStrategy[];
  /** Most plans per strategy and base scenario (the earliest targets are kept). @defaultValue 200 */
  maxPlans?: number;
  /** Stop at the first failing plan instead of running them all. @defaultValue false */
  stopOnFailure?: boolean;
}

/** What one strategy did. @public */
export interface SystematicStrategyReport {
  strategy: SystematicStrategy;
  /** The fault kind its plans use. */
  kind: string;
  /** Plans derived and run. */
  plans: number;
  /** Plans whose fault actually fired. */
  fired: number;
  /** Plans that failed a property. */
  failures: number;
  /** Why the strategy did not run (its fault kind was not among `faults`). */
  skipped?: string;
}

/** The systematic part of a result. @public */
export interface SystematicReport {
  /** Plans run over all strategies and base scenarios. */
  plans: number;
  strategies: SystematicStrategyReport[];
  /** The failing plan, in words (which write, read or state it targeted). */
  failingPlan?: { strategy: SystematicStrategy; target: string };
}

/** The result of {@link checkSystematic}: a `CheckResult` plus what each strategy did. @public */
export type SystematicResult = (CheckPassed | CheckFailed) & { systematic: SystematicReport };

/**
 * Systematic mode (SPEC §3): instead of random plans, derive single-fault plans from a
 * fault-free reference run of each base scenario — crash after the k-th write for every k, make
 * each read that precedes a write stale, drop the event of each state a later write cancels —
 * run them all, and judge each with the properties. A failing plan is already one fault; its
 * workload is delta-debugged like a `check` failure. Never throws because a property failed.
 * @example
 * ```ts
 * const r = await checkSystematic(myController, { faults: allFaults, properties: [properties.noExtraDestructiveActions()] });
 * if (!r.ok) console.log(r.systematic.failingPlan, r.explanation);
 * ```
 * @public
 */
export async function checkSystematic(target: ControllerDefinition | readonly ControllerDefinition[], options: SystematicOptions = {}): Promise<SystematicResult> {
  const { scenarios, strategies: wanted, maxPlans, stopOnFailure, ...rest } = options;
  const o = resolveCheckOptions(target, rest);
  const where = 'steadystate.checkSystematic';
  const strategies = wanted ?? ALL_STRATEGIES;
  for (const s of strategies) if (!ALL_STRATEGIES.includes(s)) throw new TypeError(`${where}: options.strategies contains ${JSON.stringify(s)}; the strategies are ${ALL_STRATEGIES.map((x) => `'${x}'`).join(', ')}.`);
  const limit = maxPlans ?? 200;
  if (!Number.isInteger(limit) || limit < 1) throw new TypeError(`${where}: options.maxPlans must be an integer ≥ 1, got ${JSON.stringify(maxPlans)}.`);
  const names = new Set(o.controllers.map((c) => c.name));
  const bases: Scenario[] = scenarios === undefined ? defaultBases(o.objects, o.controllers, o.replicas, o.scenarioOptions, o.environment.map((e) => ({ name: e.actor.name, ...(e.params ? { params: e.params } : {}) }))) : Array.isArray(scenarios) ? [...(scenarios as readonly Scenario[])] : [scenarios as Scenario];
  bases.forEach((s, i) => {
    for (const c of s.controllers) if (!names.has(c.name)) throw new TypeError(`${where}: options.scenarios[${i}] names controller "${c.name}", which is not among the controllers given (${[...names].join(', ')}).`);
  });

  const runner = new ScenarioRunner(
    { controllers: o.controllers, faults: o.faults, environment: o.environment.map((e) => e.actor), ...(o.downstream ? { downstream: o.downstream } : {}), tailMs: o.tailMs, traceReads: true, ...(o.validation ? { validation: o.validation } : {}) },
    o.properties,
  );
  const kinds = new Set(o.faults.map((f) => f.kind));
  const reports: SystematicStrategyReport[] = strategies.map((s) => ({
    strategy: s,
    kind: STRATEGY_FAULT[s],
    plans: 0,
    fired: 0,
    failures: 0,
    ...(kinds.has(STRATEGY_FAULT[s]) ? {} : { skipped: `its fault kind "${STRATEGY_FAULT[s]}" is not among options.faults` }),
  }));
  const coverage = new CoverageTracker(strategies.map((s) => STRATEGY_FAULT[s]).filter((k) => kinds.has(k)));
  const stats = new StatsCollector();
  let runs = 0;
  let found: { outcome: ScenarioOutcome; strategy: SystematicStrategy; target: string; reference: RunRecord } | undefined;
  const total = () => reports.reduce((n, r) => n + r.plans, 0);

  outer: for (const base of bases) {
    const reference = await runner.judge({ ...base, faults: emptyFaultPlan() });
    runs++;
    stats.add(runStats(reference.run, !reference.failure, reference.latencyMs));
    if (reference.failure) {
      // the bug needs no fault at all: report it as found on the reference run
      found ??= { outcome: reference, strategy: strategies[0] ?? 'crash-after-write', target: 'the fault-free reference run itself', reference: reference.run };
      if (stopOnFailure) break;
      continue;
    }
    for (const report of reports) {
      if (report.skipped) continue;
      for (const plan of derivePlans(report.strategy, reference.run).slice(0, limit)) {
        const s: Scenario = { ...base, faults: { events: plan.events, background: [] } };
        const outcome = await runner.judge(s);
        runs++;
        report.plans++;
        const firedAny = outcome.run.trace.some((e) => e.type === 'fault:inject');
        if (firedAny) report.fired++;
        coverage.add(outcome.run, reference.run);
        stats.add(runStats(outcome.run, !outcome.failure, outcome.latencyMs));
        o.onProgress?.({ runs, total: runs, failures: found ? 1 : 0, phase: 'runs' });
        if (outcome.failure) {
          report.failures++;
          found ??= { outcome, strategy: report.strategy, target: plan.target, reference: reference.run };
          if (stopOnFailure) break outer;
        }
      }
    }
  }

  const common = {
    controller: o.controllers[0]!.name,
    runs,
    seed: bases[0]?.seed ?? 0,
    properties: o.properties.map((p) => p.name),
    faults: o.faults.map((f) => f.kind),
    coverage: coverage.result(),
    stats: stats.result(),
    corpusReplayed: 0,
    determinismChecked: 0,
    simulations: runner.simulations,
  };
  const systematic: SystematicReport = { plans: total(), strategies: reports };
  if (!found) {
    o.onProgress?.({ runs, total: runs, failures: 0, phase: 'done' });
    return { ...common, ok: true, property: null, summary: null, explanation: null, scenario: null, path: null, systematic };
  }

  const failure = found.outcome.failure!;
  const property = o.properties.find((p) => p.name === failure.property);
  let minimal = { scenario: found.outcome.run.scenario, run: found.outcome.run };
  let reductions = 0;
  if (o.shrink.enabled && property) {
    // the plan is one fault already; delta debugging trims the workload around it
    const m = await minimize(minimal.scenario, minimal.run, {
      maxTests: o.shrink.maxMinimizeTests,
      stillFails: async (s) => {
        const out = await runner.judge(s, { properties: [property] });
        return out.failure?.property === failure.property ? out.run : undefined;
      },
    });
    minimal = { scenario: m.scenario, run: m.run };
    reductions = m.reductions;
  }
  const judged = property ? await runner.judgeRun(minimal.run, { properties: [property] }) : found.outcome;
  const f = judged.failure ?? failure;
  let determinism: DeterminismReport = { ok: true, hashes: [minimal.run.hash, minimal.run.hash] };
  if (o.determinism) {
    determinism = await checkDeterminism(minimal.run, (s) => runner.simulate(s, property ? [property] : o.properties), o.hostProbe);
    common.determinismChecked = 1;
  }
  o.onProgress?.({ runs, total: runs, failures: 1, phase: 'done' });
  return {
    ...common,
    simulations: runner.simulations,
    ok: false,
    property: determinism.ok ? f.property : 'determinism',
    summary: determinism.ok ? f.summary : `the failing plan does not replay: its trace differs between two runs (it had failed "${f.property}")`,
    explanation: determinism.ok ? f.explanation : `${determinism.explanation ?? ''}\nThe plan had failed "${f.property}": ${f.summary}.`,
    evidence: determinism.ok ? f.evidence : { failedProperty: f.property, hashes: determinism.hashes },
    scenario: minimal.scenario,
    originalScenario: found.outcome.run.scenario,
    path: '',
    failedAtRun: runs,
    shrinks: reductions,
    run: minimal.run,
    determinism,
    systematic: { ...systematic, failingPlan: { strategy: found.strategy, target: found.target } },
  };
}

/**
 * Default base scenarios: per object template, create an object, change its spec, change it back
 * and re-apply it (so there are states that later writes cancel), spread over the fault window.
 */
function defaultBases(
  objects: ReturnType<typeof resolveCheckOptions>['objects'],
  controllers: readonly ControllerDefinition[],
  replicas: number,
  options: Scenario['options'] & object,
  environment: EnvironmentRef[],
): Scenario[] {
  const window = options.faultWindowMs ?? 30_000;
  return objects.map((t, i) => {
    const specs = fc.sample(t.spec, { seed: 42 + i, numRuns: 8 });
    const first = specs[0]!;
    const other = specs.find((s) => JSON.stringify(s) !== JSON.stringify(first));
    const key = templateKey(t, 0);
    const ref = parseKey(key);
    const object: NewObject = {
      kind: t.kind,
      metadata: {
        name: ref.name,
        ...(ref.namespace !== undefined ? { namespace: ref.namespace } : {}),
        ...(Object.keys(t.labels).length ? { labels: { ...t.labels } } : {}),
        ...(Object.keys(t.annotations).length ? { annotations: { ...t.annotations } } : {}),
        ...(t.finalizers.length ? { finalizers: [...t.finalizers] } : {}),
      },
      spec: first,
      ...(t.status !== undefined ? { status: t.status } : {}),
    };
    const workload: WorkloadAction[] = [{ at: 0, type: 'create', object }];
    if (other) {
      workload.push({ at: Math.round(window / 4), type: 'update', kind: t.kind, key, spec: other });
      workload.push({ at: Math.round(window / 2), type: 'update', kind: t.kind, key, spec: first });
    }
    workload.push({ at: Math.round((3 * window) / 4), type: 'reapply', kind: t.kind, key });
    return {
      seed: 1,
      controllers: controllers.map((c) => ({ name: c.name, ...(replicas > 1 ? { replicas } : {}) })),
      ...(environment.length > 0 ? { environment } : {}),
      initialObjects: [],
      workload,
      faults: emptyFaultPlan(),
      ...(Object.keys(options).length > 0 ? { options: { ...options } } : {}),
    };
  });
}
