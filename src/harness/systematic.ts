import fc from 'fast-check';
import type { ControllerDefinition } from '../runtime/define-controller.js';
import { emptyFaultPlan } from './fault-plan.js';
import { resolveCheckOptions, type CheckOptions } from './check-options.js';
import type { CheckFailed, CheckPassed, DeterminismReport } from './check-result.js';
import { checkDeterminism } from './determinism.js';
import { minimize } from './minimize.js';
import type { EnvironmentRef, Scenario, WorkloadAction } from './scenario.js';
import { faultFreeFailure, guessedStop, ScenarioRunner } from './scenario-runner.js';
import { ALL_STRATEGIES, type SystematicStrategy } from './systematic-plans.js';
import { SystematicSearch } from './systematic-strategies/search.js';
import { templateKey, type WorkloadActionType } from '../arbitrary/workload.js';
import { cloneJson, parseKey, type JsonObject, type NewObject } from '../store/object.js';
import type { ResolvedStory } from './story.js';

/** Options of {@link checkSystematic}: those of `check` that apply, plus the base scenarios and strategies. @public */
export interface SystematicOptions
  extends Pick<
    CheckOptions,
    'faults' | 'properties' | 'objects' | 'actions' | 'maxObjects' | 'faultWindowMs' | 'settleMs' | 'tailMs' | 'scenarioOptions' | 'replicas' | 'environment' | 'downstream' | 'onProgress' | 'determinism' | 'shrink' | 'hostProbe' | 'onSimulation' | 'onHeartbeat' | 'signal' | 'wallClock'
  > {
  /**
   * Fault-free scenarios to derive plans from. @defaultValue one scenario per object template:
   * create an object, change its spec, change it back, re-apply it (only the user actions in
   * `actions`), and one that creates two objects (not with `maxObjects` 1: a world of one object
   * is what the user declared, e.g. when their admission webhook refuses a second ScaledObject for one target)
   */
  scenarios?: Scenario | readonly Scenario[];
  /** Strategies to run. @defaultValue every strategy in {@link ALL_STRATEGIES} */
  strategies?: readonly SystematicStrategy[];
  /** Most plans per strategy and run derived from (the earliest targets are kept). @defaultValue 200 */
  maxPlans?: number;
  /**
   * 1: single-fault plans derived from each fault-free reference run. 2: also pairs: from each
   * single-fault run whose fault changed what the controllers did (one per distinct behaviour),
   * second plans for points after that fault, run with both faults. @defaultValue 2
   */
  depth?: 1 | 2;
  /** Most plans to run in all (the rest are counted as pruned). @defaultValue 5000 */
  maxRuns?: number;
  /** Stop at the first failing plan instead of running them all. @defaultValue false */
  stopOnFailure?: boolean;
}

/** Plans of one strategy that were derived, run and pruned (for single faults, or as the second fault of a pair). @public */
export interface SystematicPlanCounts {
  /** Candidate plans derived (run + pruned). */
  derived: number;
  /** Plans run. */
  ran: number;
  /** Plans whose faults all fired. */
  fired: number;
  /** Plans that failed a property. */
  failures: number;
  /** Candidates left out, by reason (Sieve-style pruning, duplicates, budgets). */
  pruned: Record<string, number>;
}

/** What one strategy did. @public */
export interface SystematicStrategyReport {
  strategy: SystematicStrategy;
  /** The fault kind its plans use. */
  kind: string;
  /** Single-fault plans derived from the fault-free reference runs (the same as `single.derived`). */
  derived: number;
  /** Single-fault plans run. */
  plans: number;
  /** Single-fault plans whose fault fired. */
  fired: number;
  /** Single-fault plans that failed a property. */
  failures: number;
  /** Single-fault candidates left out, by reason. */
  pruned: Record<string, number>;
  /** Plans in which this strategy's fault came second, after another strategy's (depth 2). */
  pairs: SystematicPlanCounts;
  /** Why the strategy did not run (its fault kind was not among `faults`). */
  skipped?: string;
}

/** The systematic part of a result. @public */
export interface SystematicReport {
  /** Plans run over all strategies, base scenarios and depths. */
  plans: number;
  depth: 1 | 2;
  strategies: SystematicStrategyReport[];
  /** Single-fault runs extended with a second fault, and those left out (no effect, same behaviour as another, or none of its pairs could run within `maxRuns`). */
  extended: { runs: number; pruned: Record<string, number> };
  /** True when `maxRuns` stopped the search before every plan ran. */
  truncated: boolean;
  /** The failing plan, in words (which write, read or state it targeted); `faults` lists each fault of a pair. */
  failingPlan?: { strategy: SystematicStrategy; target: string; faults?: { strategy: SystematicStrategy; target: string }[] };
}

/** The result of {@link checkSystematic}: a `CheckResult` plus what each strategy did. @public */
export type SystematicResult = (CheckPassed | CheckFailed) & { systematic: SystematicReport };

/**
 * Systematic mode (SPEC §3): instead of random plans, derive plans from a fault-free reference
 * run of each base scenario with every strategy (crashes between the steps of a reconcile,
 * stale reads, unobserved and coalesced states, permuted lists, delayed and duplicated events,
 * downstream and API failures, recreation), pruned as Sieve prunes; then, at depth 2, derive
 * second faults from each single-fault run that changed what the controllers did, so bugs that
 * need two faults in order are found too. Run them all and judge each with the properties. A
 * failing plan is delta-debugged like a `check` failure. Never throws because a property failed.
 * @example
 * ```ts
 * const r = await checkSystematic(myController, { faults: allFaults, properties: [properties.noExtraDestructiveActions()] });
 * if (!r.ok) console.log(r.systematic.failingPlan, r.explanation);
 * ```
 * @public
 */
export async function checkSystematic(target: ControllerDefinition | readonly ControllerDefinition[], options: SystematicOptions = {}): Promise<SystematicResult> {
  return systematicSearch(target, options, true);
}

/** @param earlyStop - false once a full run disproved an early stop (as `check` does): every run then goes to its end */
async function systematicSearch(target: ControllerDefinition | readonly ControllerDefinition[], options: SystematicOptions, earlyStop: boolean): Promise<SystematicResult> {
  const { scenarios, strategies: wanted, maxPlans, stopOnFailure, depth: wantedDepth, maxRuns: wantedMaxRuns, ...rest } = options;
  const o = resolveCheckOptions(target, rest);
  const where = 'steadystate.checkSystematic';
  const strategies = wanted ?? ALL_STRATEGIES;
  for (const s of strategies) if (!ALL_STRATEGIES.includes(s)) throw new TypeError(`${where}: options.strategies contains ${JSON.stringify(s)}; the strategies are ${ALL_STRATEGIES.map((x) => `'${x}'`).join(', ')}.`);
  const limit = maxPlans ?? 200;
  if (!Number.isInteger(limit) || limit < 1) throw new TypeError(`${where}: options.maxPlans must be an integer ≥ 1, got ${JSON.stringify(maxPlans)}.`);
  const depth = wantedDepth ?? 2;
  if (depth !== 1 && depth !== 2) throw new TypeError(`${where}: options.depth must be 1 (single faults) or 2 (also pairs of faults), got ${JSON.stringify(wantedDepth)}.`);
  const maxRuns = wantedMaxRuns ?? 5000;
  if (!Number.isInteger(maxRuns) || maxRuns < 1) throw new TypeError(`${where}: options.maxRuns must be an integer ≥ 1, got ${JSON.stringify(wantedMaxRuns)}.`);
  const names = new Set(o.controllers.map((c) => c.name));
  const bases: Scenario[] = scenarios === undefined ? defaultBases(o.objects, o.controllers, o.replicas, o.scenarioOptions, o.environment.map((e) => ({ name: e.actor.name, ...(e.params ? { params: e.params } : {}) })), o.actions, o.story, o.maxObjects) : Array.isArray(scenarios) ? [...(scenarios as readonly Scenario[])] : [scenarios as Scenario];
  bases.forEach((s, i) => {
    for (const c of s.controllers) if (!names.has(c.name)) throw new TypeError(`${where}: options.scenarios[${i}] names controller "${c.name}", which is not among the controllers given (${[...names].join(', ')}).`);
  });

  const runner = new ScenarioRunner(
    { controllers: o.controllers, faults: o.faults, environment: o.environment.map((e) => e.actor), ...(o.downstream ? { downstream: o.downstream } : {}), tailMs: o.tailMs, traceReads: true, ...(o.validation ? { validation: o.validation } : {}), ...(o.wallClock ? { wallClock: o.wallClock } : {}) },
    o.properties,
  );
  runner.earlyStop = earlyStop;
  runner.signal = o.signal;
  // the CLI's watchdog: every plan's simulation is a heartbeat
  runner.onHeartbeat = o.onHeartbeat;
  const onSimulation = o.onSimulation;
  if (onSimulation) runner.onSimulate = (s) => onSimulation(s, undefined);
  const search = new SystematicSearch(runner, o, strategies, { limit, depth, maxRuns, stopOnFailure: stopOnFailure ?? false });
  await search.all(bases);
  const { found, coverage, stats } = search;
  const runs = search.runs;

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
    // per property, the plans it judged and those it had nothing to judge in (as check counts its runs)
    propertyRuns: o.properties.map((p) => {
      const t = runner.tally.get(p.name);
      return { name: p.name, judged: t?.judged ?? 0, unjudged: t?.unjudged ?? 0, reason: t?.reason ?? null, ms: Math.round((t?.ms ?? 0) * 10) / 10 };
    }),
  };
  const systematic = search.report();
  if (!found) {
    o.onProgress?.({ runs, total: runs, failures: 0, phase: 'done' });
    return { ...common, ok: true, property: null, summary: null, explanation: null, scenario: null, path: null, systematic };
  }

  const failure = found.outcome.failure!;
  const property = o.properties.find((p) => p.name === failure.property);
  // a failure of the fault-free twin: the plan without faults is the failing one
  const faultFree = failure.faultFree === true;
  const start = faultFree ? await runner.faultFreeOutcome(found.outcome, property) : found.outcome;
  let minimal = { scenario: start.run.scenario, run: start.run };
  let reductions = 0;
  if (o.shrink.enabled && property) {
    // the plan is one or two faults already; delta debugging trims the workload around them
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
  // an early stop is a prediction: the minimal plan run to its end must fail too, and the plan found,
  // when shrinking moved away from a guess (shrinking must not decide the verdict: as `check` does),
  // else search again without early stops, unless the plan does not run the same twice (red team
  // N4: a controller that misbehaves only in its first simulations would pass)
  let determinism: DeterminismReport = { ok: true, hashes: [minimal.run.hash, minimal.run.hash] };
  let judgedDeterminism = false;
  if (property && (await runner.confirmShrunkEarlyStop(minimal.run, property, { original: found.outcome.run.scenario, guessed: guessedStop(found.outcome) })) === null) {
    if (!o.determinism) return systematicSearch(target, options, false);
    determinism = await checkDeterminism(minimal.run, (s) => runner.simulate(s, [property]), o.hostProbe);
    if (determinism.ok) return systematicSearch(target, options, false);
    common.determinismChecked = 1;
    judgedDeterminism = true;
  }
  const judged = property ? await runner.judgeRun(minimal.run, { properties: [property] }) : found.outcome;
  const f = faultFree && judged.failure !== undefined ? faultFreeFailure(judged.failure) : (judged.failure ?? failure);
  if (o.determinism && !judgedDeterminism) {
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
    failedAtRun: found.runNumber,
    shrinks: reductions,
    run: minimal.run,
    determinism,
    systematic: { ...systematic, failingPlan: found.plan },
  };
}

/**
 * Default base scenarios: per object template, create an object, change its spec, change it back
 * and re-apply it (so there are states that later writes cancel), spread over the fault window;
 * and create two objects, the second a little later (what one object's faults do to another's).
 * Only the user actions the check allows (`actions`) are taken: a spec change by update, else by
 * merge patch, else none; the re-apply only when allowed (a user who declared that nobody edits
 * a spec must not be judged on edits). The two-object base only when `maxObjects` allows two (a
 * user who declared one object at a time must not be judged on two: found by rt51, whose KEDA-style
 * scaler, one ScaledObject per target as KEDA's webhook enforces, failed 4,496 of 5,000 plans on
 * two ScaledObjects fighting over one Worker in the reference run itself).
 */
function defaultBases(
  objects: ReturnType<typeof resolveCheckOptions>['objects'],
  controllers: readonly ControllerDefinition[],
  replicas: number,
  options: Scenario['options'] & object,
  environment: EnvironmentRef[],
  actions: readonly WorkloadActionType[],
  story: ResolvedStory | undefined,
  maxObjects: number,
): Scenario[] {
  const window = options.faultWindowMs ?? 30_000;
  // a story is the world the templates' objects live in (a sweeper object its buckets need): each
  // base starts from it, its timed actions among the base's own (ignored before, stop 40: an
  // orphan-sweeper without its BucketSweeper left every orphan a recreation made)
  const base = (w: WorkloadAction[]): Scenario => ({
    seed: 1,
    controllers: controllers.map((c) => ({ name: c.name, ...(replicas > 1 ? { replicas } : {}) })),
    ...(environment.length > 0 ? { environment } : {}),
    initialObjects: story ? story.objects.map((x) => cloneJson(x)) : [],
    workload: story ? [...story.actions.map((a) => cloneJson(a)), ...w].sort((a, b) => a.at - b.at) : w,
    faults: emptyFaultPlan(),
    ...(Object.keys(options).length > 0 ? { options: { ...options } } : {}),
  });
  if (objects.length === 0 && story) return [base([])];
  // from one spec to another: by update, else by merge patch (the keys only `from` has set to null), else not at all
  const change = (at: number, kind: string, key: string, from: JsonObject, to: JsonObject): WorkloadAction | undefined =>
    actions.includes('update')
      ? { at, type: 'update', kind, key, spec: to }
      : actions.includes('patch')
        ? { at, type: 'patch', kind, key, patch: { spec: { ...Object.fromEntries(Object.keys(from).map((k) => [k, null])), ...to } } }
        : undefined;
  const perTemplate = objects.map((t, i) => {
    const specs = fc.sample(t.spec, { seed: 42 + i, numRuns: 8 });
    const first = specs[0]!;
    const other = specs.find((s) => JSON.stringify(s) !== JSON.stringify(first));
    const key = templateKey(t, 0);
    const object = templateObject(t, first);
    const workload: WorkloadAction[] = [{ at: 0, type: 'create', object }];
    const there = other && change(Math.round(window / 4), t.kind, key, first, other);
    const back = other && change(Math.round(window / 2), t.kind, key, other, first);
    if (there && back) workload.push(there, back);
    if (actions.includes('reapply')) workload.push({ at: Math.round((3 * window) / 4), type: 'reapply', kind: t.kind, key });
    // and one with a second object of the kind, created later: what one object does to another's
    // (a list of two, the newest one a lagging view misses)
    const key1 = templateKey(t, 1);
    const ref1 = parseKey(key1);
    const second: NewObject = { ...object, metadata: { ...object.metadata, name: ref1.name }, spec: other ?? first };
    const two: WorkloadAction[] = [{ at: 0, type: 'create', object }, { at: Math.round(window / 8), type: 'create', object: second }];
    return (maxObjects >= 2 ? [workload, two] : [workload]).map(base);
  }).flat();
  return objects.length < 2 ? perTemplate : [...perTemplate, base(worldWorkload(objects, controllers, window, actions))];
}

/**
 * A base with one object of every template, so what one kind's objects do to another's runs: the
 * primary first (the first template of a controller's primary kind), each other object a little
 * later with a spec that names an object made before it when one of its specs does (a Machine whose
 * `spec.pool` is the pool's name), and, when deletes are allowed, the primary deleted at half the
 * window, after the controller acted on the others: its cleanup (a finalizer releasing or
 * un-marking what it wrote on objects it does not own) is a path no per-template base takes. Stop
 * 52: machine-pool's and target-registration's twins release from their cache on deletion, which
 * swarm search finds about once in 300 runs (a pool, a Machine naming it and the pool's deletion
 * after it are one workload in 230) and no systematic plan could reach.
 */
function worldWorkload(objects: ReturnType<typeof resolveCheckOptions>['objects'], controllers: readonly ControllerDefinition[], window: number, actions: readonly WorkloadActionType[]): WorkloadAction[] {
  const primaryKinds = new Set(controllers.map((c) => c.for));
  const first = Math.max(0, objects.findIndex((t) => primaryKinds.has(t.kind)));
  const order = [first, ...objects.map((_, i) => i).filter((i) => i !== first)];
  const made: string[] = [];
  const workload: WorkloadAction[] = [];
  order.forEach((ti, k) => {
    const t = objects[ti]!;
    const specs = fc.sample(t.spec, { seed: 42 + ti, numRuns: 8 });
    const spec = specs.find((x) => namesAny(x, made)) ?? specs[0]!;
    const object = templateObject(t, spec);
    made.push(object.metadata.name!);
    workload.push({ at: Math.round((k * window) / (4 * Math.max(2, objects.length))), type: 'create', object });
  });
  if (actions.includes('delete')) workload.push({ at: Math.round(window / 2), type: 'delete', kind: objects[first]!.kind, key: templateKey(objects[first]!, 0) });
  return workload;
}

/** A base's object of template `t` (its first key), with `spec`. */
function templateObject(t: ReturnType<typeof resolveCheckOptions>['objects'][number], spec: JsonObject): NewObject {
  const ref = parseKey(templateKey(t, 0));
  return {
    // the template's apiVersion, as generated workloads have it: without it a custom kind named like a built-in
    // (a ServiceAccount of tokens.example.com/v1) is the built-in, with no status subresource (stop 51: every
    // status write of service-account-tokens' reference runs was a 404, so none converged)
    ...(t.apiVersion !== undefined ? { apiVersion: t.apiVersion } : {}),
    kind: t.kind,
    metadata: {
      name: ref.name,
      ...(ref.namespace !== undefined ? { namespace: ref.namespace } : {}),
      ...(Object.keys(t.labels).length ? { labels: { ...t.labels } } : {}),
      ...(Object.keys(t.annotations).length ? { annotations: { ...t.annotations } } : {}),
      ...(t.finalizers.length ? { finalizers: [...t.finalizers] } : {}),
    },
    spec,
    ...(t.status !== undefined ? { status: t.status } : {}),
  };
}

/** Whether a JSON value holds one of the names as a string anywhere. */
function namesAny(v: unknown, names: readonly string[]): boolean {
  if (typeof v === 'string') return names.includes(v);
  if (Array.isArray(v)) return v.some((x) => namesAny(x, names));
  if (v !== null && typeof v === 'object') return Object.values(v).some((x) => namesAny(x, names));
  return false;
}
