import { isControllerDefinition, type ControllerDefinition } from '../runtime/define-controller.js';
import type { JsonObject } from '../store/object.js';
import { ALL_ACTION_TYPES, resolveObjectTemplates, type ObjectTemplate, type ResolvedObjectTemplate, type WorkloadActionType } from '../arbitrary/workload.js';
import type { CheckFailed } from './check-result.js';
import type { ValidationOptions } from '../store/immutability.js';
import type { HostSourceProbe } from './determinism.js';
import type { EnvironmentActor } from './environment.js';
import type { FaultModule } from './fault.js';
import { isLookAlikeProperty, type Property } from './property.js';
import { resolveScenarioOptions, scenarioSchema, type Scenario, type ScenarioOptions } from './scenario.js';
import { resolveStory, type ResolvedStory, type Story } from './story.js';
import { schemaProblem } from './schema-problem.js';
import { scenarioMisfit } from './scenario-fit.js';
import { shardProblem, type Shard } from './shard.js';
import { settleMinimum } from './settle-minimum.js';
import type { SimulateOptions } from './simulate.js';
import type { ReportField } from '../report/timeline-recorder.js';

/** Progress of a running check, reported after every scenario. @public */
export interface CheckProgress {
  /** Scenarios run so far (corpus replays and generated ones; shrinking not counted). */
  runs: number;
  /** Scenarios this check will run at most (this shard's share). */
  total: number;
  /** Failing scenarios found so far (0 or 1: the check stops at the first and shrinks it). */
  failures: number;
  phase: 'corpus' | 'runs' | 'shrinking' | 'done';
  /** While shrinking: candidates tried so far, and what the smallest failing scenario still holds. */
  shrink?: { step: number; faultEvents: number; actions: number };
  /** Wall ms since the check started (with the host clock; 0 without). */
  elapsedMs?: number;
  /** Wall ms left of the budget of this phase (`timeLimitMs` while searching, `shrinkTimeLimitMs` while shrinking), when one is set. */
  budgetLeftMs?: number;
}

/** A regression corpus (SPEC §6): scenarios replayed before generated ones, and where new failures go. @public */
export interface CheckCorpus {
  /** Scenarios to replay first (e.g. loaded from `reports/corpus/`). @defaultValue [] */
  scenarios?: readonly Scenario[];
  /** Where each scenario came from (its file), named when one fails: a failure replayed from the corpus is announced. @defaultValue none */
  names?: readonly string[];
  /** Called once with a new failure (not one replayed from the corpus), e.g. to save it. */
  onFailure?: (failure: CheckFailed) => void | Promise<void>;
}

/** An environment actor with its parameters. @public */
export interface EnvironmentUse {
  actor: EnvironmentActor;
  params?: JsonObject;
}

/**
 * Options of `check`. Every field is optional; the defaults test the controller with every
 * property and every fault kind (swarm), over objects made from the controller's `sample`.
 * @public
 */
export interface CheckOptions {
  /** Generated scenarios to run (before sharding). @defaultValue 100 */
  runs?: number;
  /** fast-check seed; replays a check exactly. @defaultValue chosen by fast-check and reported in the result */
  seed?: number;
  /** fast-check path of a failure (with its `seed`, and its `shard` when it came from one: guided search rebuilds the pool that shard kept): replays that run and its shrink. @defaultValue none */
  path?: string;
  /** Fault kinds scenarios may use. @defaultValue every built-in kind (the public `check`); [] in the harness */
  faults?: readonly FaultModule[];
  /** Swarm testing: each scenario enables a random subset of the kinds. `false` pins every kind on. @defaultValue true */
  swarm?: boolean;
  /**
   * How scenarios are generated. `'swarm'`: every run a fresh draw of the scenario arbitrary.
   * `'guided'`: coverage-guided swarm: runs that add behaviour coverage are kept and mostly
   * mutated (their random decisions), so rare states get explored further; failures shrink and
   * replay (seed + path) as in swarm mode. @defaultValue 'swarm'
   */
  search?: 'swarm' | 'guided';
  /**
   * Aimed swarm search: half of a run's fault events each bring along a plan a systematic strategy
   * of its kind derives from the run's fault-free twin (a permuted list before a write, a stale view
   * across another actor's change…; see `ALL_STRATEGIES`); every drawn event stays. It finds bugs
   * whose fault matters only at a few points of a run in far fewer runs, but the added fault can mask
   * what a blind draw found (some exhibits took up to twice as many runs), so it is off by default.
   * Guided search has its own (mutants add derived plans) and ignores it.
   * @defaultValue false
   */
  aimFaults?: boolean;
  /** Properties every run must satisfy. @defaultValue every built-in property (the public `check`); [] in the harness */
  properties?: readonly Property[];
  /**
   * What the primary objects look like: templates the workload creates and updates objects
   * from. `spec` is a fast-check arbitrary, a list of specs or one spec.
   * @example objects: { kind: 'ReplicaSet', spec: fc.record({ replicas: fc.integer({ min: 1, max: 5 }) }), status: { replicas: 0 } }
   * @defaultValue one template per controller kind, with the controller's `sample` specs (or an empty spec)
   */
  objects?: ObjectTemplate | readonly ObjectTemplate[];
  /**
   * A story: exact objects and timed user actions (see {@link Story}), with faults generated
   * around it. With a story, `check` generates no further objects unless `objects` is given
   * (then generated objects are mixed in). The public `check` also takes the path of a story file
   * (YAML, see the README).
   * @defaultValue none: only generated workloads
   */
  story?: Story | string;
  /**
   * Kubernetes YAML manifests (multi-document files; paths or globs, relative to the working
   * directory) whose objects the user creates at t=0: a story's initial objects. Read by the
   * public `check` (and the CLI's `--manifests`).
   * @example manifests: ['config/samples/*.yaml']
   * @defaultValue none
   */
  manifests?: readonly string[];
  /** Generated objects per scenario (at least one). @defaultValue 2 */
  maxObjects?: number;
  /** Workload actions per scenario besides the creates. @defaultValue 4 */
  maxActions?: number;
  /** Concrete fault events per scenario. @defaultValue 4 */
  maxFaultEvents?: number;
  /** Upper bound of the `nth` occurrence concrete fault events target (the nth notification, write, read…). @defaultValue max(8, 3 × (objects + actions)), generated and the story's */
  maxNth?: number;
  /** Workload action types. @defaultValue every type ('reapply', 'update', 'patch', 'delete', 'removeFinalizer') */
  actions?: readonly WorkloadActionType[];
  /** Faults act (and user actions happen) in [0, faultWindowMs). @defaultValue 30_000 */
  faultWindowMs?: number;
  /** Settle phase after faults stop: convergence must hold within it. @defaultValue 30_000 */
  settleMs?: number;
  /** Quiet tail after settle (idempotence and hot-loop probes). @defaultValue 10_000 */
  tailMs?: number;
  /** Further timing of every scenario (watch latency, restart delay, …). @defaultValue {} */
  scenarioOptions?: Omit<ScenarioOptions, 'faultWindowMs' | 'settleMs'>;
  /** Replicas of each controller. @defaultValue 1 */
  replicas?: number;
  /** Environment actors sharing the world (with parameters). @defaultValue [] */
  environment?: readonly (EnvironmentActor | EnvironmentUse)[];
  /** Builds each run's downstream (fake services, msw handlers). @defaultValue none: ctx.fetch fails */
  downstream?: SimulateOptions['downstream'];
  /** Run only this slice of the runs (deterministic; the union of all shards is the unsharded check). @defaultValue all runs */
  shard?: Shard;
  /** Regression corpus: scenarios to replay first, and a callback for new failures. @defaultValue none */
  corpus?: CheckCorpus;
  /** Called after every scenario. @defaultValue none */
  onProgress?: (progress: CheckProgress) => void;
  /**
   * Called before every simulation the check runs (generated runs, corpus replays, twins,
   * shrink candidates, determinism re-runs) with its scenario and, for a generated run, its
   * 0-based run index: a heartbeat for wall-clock watchdogs (the CLI's worker threads).
   * @defaultValue none
   */
  onSimulation?: (scenario: Scenario, runIndex: number | undefined) => void;
  /** Skip generated runs before this 0-based run index (generated, not run): resumes a check after the run that stopped it. @defaultValue 0 */
  resumeAt?: number;
  /**
   * 0-based indices of runs before `resumeAt` that never returned (a watchdog terminated them).
   * A resumed guided check re-runs the skipped runs to rebuild its pool, all but these (which
   * would hang again, and added nothing to the pool the first time). @defaultValue []
   */
  hungRuns?: readonly number[];
  /** Determinism self-check: re-run every failure and every `sampleEvery`-th passing scenario. `false` disables. @defaultValue { sampleEvery: 10 } */
  determinism?: false | { sampleEvery?: number };
  /** Fault coverage (needs a fault-free twin run of each scenario in which a fault fired). @defaultValue true */
  coverage?: boolean;
  /** Fail the check (property `fault-coverage`) when an enabled fault kind never fired. @defaultValue false */
  requireAllFaultsFired?: boolean;
  /** Shrinking budget: fast-check shrink steps and delta-debugging re-runs. `false` reports the first failure as found. @defaultValue { maxSteps: 1000, maxMinimizeTests: 400 } */
  shrink?: false | { maxSteps?: number; maxMinimizeTests?: number };
  /** Record reads in traces (properties explaining stale reads use them). @defaultValue true */
  traceReads?: boolean;
  /**
   * What the simulated API server validates besides the built-in kinds' rules: immutable paths of
   * custom kinds, e.g. `{ immutable: { Database: ['spec.storageClass'] } }` (a write that changes one
   * gets 422, as a CRD rule `self == oldSelf` answers). @defaultValue {}
   */
  validation?: ValidationOptions;
  /**
   * Wall-clock budget (ms) of the search (corpus replays and generated runs), fast-check's
   * `interruptAfterTimeLimit` idea: when it runs out the check stops where it is, passes on the
   * runs it made (or fails on a failure found), and says so in `result.cutShort`.
   * @defaultValue none (the runs bound the search)
   */
  timeLimitMs?: number;
  /**
   * Wall-clock budget (ms) of shrinking a failure: when it runs out, the smallest failing
   * scenario found so far is reported, and `result.cutShort` says so.
   * @defaultValue none (`shrink.maxSteps` and `shrink.maxMinimizeTests` bound it)
   */
  shrinkTimeLimitMs?: number;
  /**
   * Cancels the check: once the signal aborts, the simulation in progress stops at its next host
   * yield (about every 50 ms of wall time) and the check rejects with the signal's reason, as
   * `fetch` does. Pass vitest's `context.signal` (aborted when the test times out or the run is
   * cancelled: `toPassCheck` passes it by itself) so a timed-out test does not leave its check
   * running beside the next tests, or `AbortSignal.timeout(ms)`. For a check that should stop
   * and report what it found instead, use `timeLimitMs`.
   * @defaultValue none
   */
  signal?: AbortSignal;
  /**
   * What `check` (and `toPassCheck`) prints: 0 nothing; 1 on a pass, what the CLI prints (fault
   * coverage per kind, "fault list-order: fired 0× in 12 runs where enabled", convergence
   * latency, writes per object, properties that judged no run), and on a failure the coverage
   * of the runs before it; 2 adds how many runs each property judged.
   * @defaultValue 0
   */
  verbose?: 0 | 1 | 2;
  /** Where `verbose` output goes, one line per call. @defaultValue console.log */
  log?: (line: string) => void;
  /**
   * Fields the HTML report charts as desired vs actual for each primary object: dotted paths
   * (`[field=value]` picks a list element, e.g. a condition) or a constant desired value. The
   * report also charts what the convergence predicate said over the run.
   * @example reportFields: [{ label: 'Ready', desired: 1, actual: 'status.conditions[type=Ready].status' }]
   * @defaultValue same-named numeric spec and status fields, else metadata.generation vs status.observedGeneration (the default convergence test)
   */
  reportFields?: readonly ReportField[];
  /** @internal The host's wall clock in ms (set by the public `check`): yields to the event loop, budgets, elapsed times. */
  wallClock?: () => number;
  /** @internal Called at every host yield of every simulation (about every 50 ms of a long run): a heartbeat for the CLI's watchdog. */
  onHeartbeat?: () => void;
  /** @internal Watches host nondeterminism during determinism re-runs (set by the public `check`). */
  hostProbe?: HostSourceProbe;
}

/** {@link CheckOptions} with defaults applied and validated. @internal */
export interface ResolvedCheckOptions {
  controllers: readonly ControllerDefinition[];
  runs: number;
  seed: number | undefined;
  path: string | undefined;
  faults: readonly FaultModule[];
  swarm: boolean;
  search: 'swarm' | 'guided';
  aimFaults: boolean;
  properties: readonly Property[];
  /** Templates of generated objects; `[]` when a story runs alone. */
  objects: readonly ResolvedObjectTemplate[];
  story: ResolvedStory | undefined;
  maxObjects: number;
  maxActions: number;
  maxFaultEvents: number;
  maxNth: number;
  actions: readonly WorkloadActionType[];
  scenarioOptions: ScenarioOptions;
  tailMs: number;
  replicas: number;
  environment: readonly EnvironmentUse[];
  downstream: SimulateOptions['downstream'] | undefined;
  shard: Shard | undefined;
  corpus: { scenarios: readonly Scenario[]; names: readonly string[]; onFailure: CheckCorpus['onFailure'] | undefined };
  onProgress: CheckOptions['onProgress'] | undefined;
  onSimulation: CheckOptions['onSimulation'] | undefined;
  resumeAt: number;
  hungRuns: readonly number[];
  determinismEvery: number;
  determinism: boolean;
  coverage: boolean;
  requireAllFaultsFired: boolean;
  shrink: { enabled: boolean; maxSteps: number; maxMinimizeTests: number };
  traceReads: boolean;
  validation: ValidationOptions | undefined;
  hostProbe: HostSourceProbe | undefined;
  timeLimitMs: number | undefined;
  shrinkTimeLimitMs: number | undefined;
  signal: AbortSignal | undefined;
  wallClock: (() => number) | undefined;
  onHeartbeat: (() => void) | undefined;
}

const WHERE = 'steadystate.check';

function fail(message: string): never {
  throw new TypeError(`${WHERE}: ${message}`);
}

function positiveInt(name: string, v: unknown, fallback: number, min = 1): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) fail(`options.${name} must be an integer ≥ ${min}, got ${JSON.stringify(v)}. Pass e.g. { ${name}: ${fallback} } or leave it out for the default (${fallback}).`);
  return v;
}

function ms(name: string, v: unknown): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) fail(`options.${name} must be a finite number of virtual milliseconds ≥ 0, got ${JSON.stringify(v)}.`);
  return v;
}

function wallMs(name: string, v: unknown): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) fail(`options.${name} must be a positive number of wall-clock milliseconds, got ${JSON.stringify(v)}. Pass e.g. { ${name}: 30_000 } or leave it out for no budget.`);
  return v;
}

/**
 * Resolves and validates check options once, with messages that name the option and the fix.
 * @internal
 */
export function resolveCheckOptions(target: ControllerDefinition | readonly ControllerDefinition[], options: CheckOptions = {}): ResolvedCheckOptions {
  const controllers = Array.isArray(target) ? [...(target as readonly ControllerDefinition[])] : [target as ControllerDefinition];
  if (controllers.length === 0) fail('no controller given. Pass a controller made by defineController, or a list of them: check(myController, options).');
  controllers.forEach((c, i) => {
    if (!isControllerDefinition(c)) fail(`${Array.isArray(target) ? `controllers[${i}]` : 'the first argument'} is not a controller (got ${describe(c)}). Make one with defineController({ name, for, reconcile }).`);
  });
  const names = new Set<string>();
  for (const c of controllers) {
    if (names.has(c.name)) fail(`two controllers are named "${c.name}". Give each controller a unique name.`);
    names.add(c.name);
  }
  if (options === null || typeof options !== 'object') fail(`options must be an object, got ${describe(options)}.`);

  const runs = positiveInt('runs', options.runs, 100);
  if (options.aimFaults !== undefined && typeof options.aimFaults !== 'boolean') fail(`options.aimFaults must be true or false, got ${JSON.stringify(options.aimFaults)}.`);
  if (options.search !== undefined && options.search !== 'swarm' && options.search !== 'guided') fail(`options.search must be 'swarm' or 'guided', got ${JSON.stringify(options.search)}.`);
  if (options.seed !== undefined && (typeof options.seed !== 'number' || !Number.isInteger(options.seed))) fail(`options.seed must be an integer (the seed a previous check reported), got ${JSON.stringify(options.seed)}.`);
  if (options.path !== undefined && (typeof options.path !== 'string' || !/^\d+(:\d+)*$/.test(options.path)))
    fail(`options.path must be a fast-check path such as "12:3:0" (from a failed result's \`path\`), got ${JSON.stringify(options.path)}.`);
  if (options.path !== undefined && options.seed === undefined) fail('options.path replays a failure only together with its seed. Pass both { seed, path } from the failed result.');

  const faults = [...(options.faults ?? [])];
  faults.forEach((f, i) => {
    if (!f || typeof f !== 'object' || typeof f.kind !== 'string' || typeof f.install !== 'function' || typeof f.arbitrary !== 'function')
      fail(`options.faults[${i}] is not a fault module (got ${describe(f)}). Use the built-ins (faults.eventLoss, …) or defineFault({...}).`);
  });
  const properties = [...(options.properties ?? [])];
  properties.forEach((p, i) => {
    if (typeof p === 'function') fail(`options.properties[${i}] is a property factory; call it: properties.${camel(String((p as { propertyName?: string }).propertyName ?? 'convergence'))}() instead of properties.${camel(String((p as { propertyName?: string }).propertyName ?? 'convergence'))}.`);
    if (!p || typeof p !== 'object' || typeof p.judge !== 'function' || typeof p.name !== 'string') fail(`options.properties[${i}] is not a property (got ${describe(p)}). Use the built-ins (properties.convergence(), …) or defineProperty({...})().`);
    if (isLookAlikeProperty(p)) fail(`options.properties[${i}] is named "${p.name}" but is not steadystate's ${p.name}: a pass would read as the built-in's. Use properties.${camel(p.name)}() for the built-in, or give your own property another name (defineProperty({ name: 'my-${p.name}', … })).`);
    // a kind no controller reconciles would declare nothing: a misspelling, said now rather than ignored
    const reconciled = controllers.map((c) => c.for);
    for (const kind of p.timingDependent ?? []) if (!reconciled.includes(kind)) fail(`options.properties[${i}] (${p.name}) declares ${JSON.stringify(kind)} timing dependent, but no controller reconciles that kind (they reconcile ${reconciled.map((k) => JSON.stringify(k)).join(', ')}). Name the kind a controller is defined \`for\`.`);
  });

  if (typeof options.story === 'string' || options.manifests !== undefined)
    fail(`options.${typeof options.story === 'string' ? 'story is a file name' : 'manifests names files'}, which only the public check reads. Import check from 'steadystate' (not the harness), or pass the story as data: { objects, actions }.`);
  const story = options.story === undefined ? undefined : resolveStory(options.story, WHERE, 'options.story');
  const generate = story === undefined || options.objects !== undefined;
  const maxObjects = positiveInt('maxObjects', options.maxObjects, 2);
  const maxActions = positiveInt('maxActions', options.maxActions, 4, 0);
  const maxFaultEvents = positiveInt('maxFaultEvents', options.maxFaultEvents, 4, 0);
  const storySize = story ? story.objects.length + story.actions.length : 0;
  const maxNth = positiveInt('maxNth', options.maxNth, Math.max(8, 3 * ((generate ? maxObjects + maxActions : 0) + storySize)), 0);
  const actions = options.actions ?? ALL_ACTION_TYPES;
  for (const a of actions) if (!ALL_ACTION_TYPES.includes(a)) fail(`options.actions contains ${JSON.stringify(a)}; the action types are ${ALL_ACTION_TYPES.map((x) => `'${x}'`).join(', ')} ('create' is always used).`);

  const faultWindowMs = ms('faultWindowMs', options.faultWindowMs);
  const settleMs = ms('settleMs', options.settleMs);
  const tailMs = ms('tailMs', options.tailMs) ?? 10_000;
  const scenarioOptions: ScenarioOptions = { ...(options.scenarioOptions ?? {}) };
  if (faultWindowMs !== undefined) scenarioOptions.faultWindowMs = faultWindowMs;
  if (settleMs !== undefined) scenarioOptions.settleMs = settleMs;
  const minimum = settleMinimum(properties, scenarioOptions);
  const settle = resolveScenarioOptions(scenarioOptions).settleMs;
  if (minimum && settle < minimum.ms) {
    fail(`options.settleMs is ${settle} virtual ms${settleMs === undefined ? ' (the default)' : ''}, too short to judge: it must be at least ${minimum.ms} ms, because ${minimum.why}. Pass { settleMs: ${minimum.ms} } or more.`);
  }

  const environment: EnvironmentUse[] = (options.environment ?? []).map((e, i) => {
    const use = 'actor' in e ? e : { actor: e };
    if (!use.actor || typeof use.actor.install !== 'function' || typeof use.actor.name !== 'string') fail(`options.environment[${i}] is not an environment actor (got ${describe(e)}). Pass an EnvironmentActor or { actor, params }.`);
    return use;
  });
  if (options.verbose !== undefined && options.verbose !== 0 && options.verbose !== 1 && options.verbose !== 2) fail(`options.verbose must be 0, 1 or 2, got ${JSON.stringify(options.verbose)}. 1 prints fault coverage and latency on a pass, 2 also what each property judged.`);
  if (options.log !== undefined && typeof options.log !== 'function') fail('options.log must be a function (line: string) => void, e.g. console.log.');
  const rf: unknown = options.reportFields;
  if (rf !== undefined && (!Array.isArray(rf) || !rf.every((f) => f !== null && typeof f === 'object' && typeof (f as ReportField).actual === 'string' && (typeof (f as ReportField).desired === 'string' || typeof (f as ReportField).desired === 'number'))))
    fail(`options.reportFields must be a list of { desired: path or number, actual: path, label? }, e.g. [{ label: 'Ready', desired: 1, actual: 'status.conditions[type=Ready].status' }]; got ${describe(rf)}.`);
  const ds: unknown = options.downstream;
  if (ds !== undefined && typeof ds !== 'function' && !(typeof ds === 'object' && ds !== null && typeof (ds as { build?: unknown }).build === 'function'))
    fail(`options.downstream must be a factory () => ({ services, handlers }) called once per run (or { build(world) }), as SimulateOptions.downstream; got ${describe(ds)}.`);

  if (options.shard !== undefined) {
    const problem = shardProblem(options.shard, `${WHERE}: options`);
    if (problem) throw new TypeError(problem);
  }
  const corpusScenarios = [...(options.corpus?.scenarios ?? [])];
  corpusScenarios.forEach((s, i) => {
    const parsed = scenarioSchema.safeParse(s, { reportInput: true });
    if (!parsed.success) throw new TypeError(schemaProblem(parsed.error, WHERE, `options.corpus.scenarios[${i}]`));
    const misfit = scenarioMisfit(s, { controllers: [...names], faults: faults.map((f) => f.kind), environment: environment.map((e) => e.actor.name) });
    if (misfit !== undefined) fail(`options.corpus.scenarios[${i}] cannot run in this check: ${misfit}. Leave that scenario out, or pass what it needs.`);
  });
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') fail('options.onProgress must be a function ({ runs, total, failures, phase }) => void.');
  if (options.onSimulation !== undefined && typeof options.onSimulation !== 'function') fail('options.onSimulation must be a function (scenario, runIndex) => void.');

  const det = options.determinism;
  const determinismEvery = det === false ? 0 : positiveInt('determinism.sampleEvery', det?.sampleEvery, 10);
  const shrink = options.shrink === false ? { enabled: false, maxSteps: 0, maxMinimizeTests: 0 } : { enabled: true, maxSteps: positiveInt('shrink.maxSteps', options.shrink?.maxSteps, 1000, 0), maxMinimizeTests: positiveInt('shrink.maxMinimizeTests', options.shrink?.maxMinimizeTests, 400, 0) };

  return {
    controllers,
    runs,
    seed: options.seed,
    path: options.path,
    faults,
    swarm: options.swarm ?? true,
    search: options.search ?? 'swarm',
    aimFaults: options.aimFaults ?? false,
    properties,
    objects: generate ? resolveObjects(options.objects, controllers) : [],
    story,
    maxObjects,
    maxActions,
    maxFaultEvents,
    maxNth,
    actions,
    scenarioOptions,
    tailMs,
    replicas: positiveInt('replicas', options.replicas, 1),
    environment,
    downstream: options.downstream,
    shard: options.shard,
    corpus: { scenarios: corpusScenarios, names: [...(options.corpus?.names ?? [])], onFailure: options.corpus?.onFailure },
    onProgress: options.onProgress,
    onSimulation: options.onSimulation,
    resumeAt: positiveInt('resumeAt', options.resumeAt, 0, 0),
    hungRuns: hungRunsOf(options.hungRuns),
    determinism: det !== false,
    determinismEvery,
    coverage: options.coverage ?? true,
    requireAllFaultsFired: options.requireAllFaultsFired ?? false,
    shrink,
    traceReads: options.traceReads ?? true,
    validation: resolveValidation(options.validation),
    hostProbe: options.hostProbe,
    timeLimitMs: wallMs('timeLimitMs', options.timeLimitMs),
    shrinkTimeLimitMs: wallMs('shrinkTimeLimitMs', options.shrinkTimeLimitMs),
    signal: abortSignal(options.signal),
    wallClock: options.wallClock,
    onHeartbeat: options.onHeartbeat,
  };
}

/** `options.signal`, checked: an AbortSignal (vitest's `context.signal`, `AbortSignal.timeout(ms)`, an AbortController's). */
function abortSignal(v: unknown): AbortSignal | undefined {
  if (v === undefined) return undefined;
  if (!(v instanceof AbortSignal)) fail(`options.signal must be an AbortSignal (vitest's \`context.signal\`, \`AbortSignal.timeout(ms)\` or an AbortController's \`signal\`), got ${describe(v)}.`);
  return v;
}

/** `options.validation`, checked: `immutable` maps kinds to lists of dotted paths. */
function resolveValidation(v: CheckOptions['validation']): ValidationOptions | undefined {
  if (v === undefined) return undefined;
  if (v === null || typeof v !== 'object') fail(`options.validation must be an object such as { immutable: { Database: ['spec.storageClass'] } }, got ${describe(v)}.`);
  const im = v.immutable;
  if (im !== undefined) {
    if (im === null || typeof im !== 'object' || Array.isArray(im)) fail(`options.validation.immutable must map kinds to lists of paths, e.g. { Database: ['spec.storageClass'] }, got ${describe(im)}.`);
    for (const [kind, paths] of Object.entries(im)) {
      if (!Array.isArray(paths) || !paths.every((p) => typeof p === 'string' && /^[^.\s]+(\.[^.\s]+)*$/.test(p))) fail(`options.validation.immutable.${kind} must be a list of dotted paths such as 'spec.storageClass', got ${describe(paths)}.`);
    }
  }
  return v;
}

/** Templates from the option, or one per controller kind from the controllers' samples. */
function resolveObjects(objects: CheckOptions['objects'], controllers: readonly ControllerDefinition[]): ResolvedObjectTemplate[] {
  if (objects !== undefined && (objects === null || typeof objects !== 'object')) fail(`options.objects must be an object template or a list of them, got ${describe(objects)}.`);
  const list: ObjectTemplate[] =
    objects === undefined
      ? [...new Map(controllers.map((c) => [c.for, { kind: c.for, spec: c.sample.length > 0 ? c.sample : [{}] } as ObjectTemplate])).values()]
      : Array.isArray(objects)
        ? [...(objects as readonly ObjectTemplate[])]
        : [objects as ObjectTemplate];
  return resolveObjectTemplates(list, controllers[0]!.for, WHERE, (i) => (i < 0 || !Array.isArray(objects) ? 'options.objects' : `options.objects[${i}]`));
}

function camel(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function describe(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (typeof v === 'function') return `a function${v.name ? ` (${v.name})` : ''}`;
  try {
    const s = JSON.stringify(v);
    return s.length > 80 ? s.slice(0, 80) + '…' : s;
  } catch {
    return String(v);
  }
}

function hungRunsOf(v: unknown): readonly number[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every((n) => Number.isInteger(n) && n >= 0)) fail(`options.hungRuns must be a list of 0-based run indices, got ${JSON.stringify(v)}.`);
  return [...(v as number[])];
}
