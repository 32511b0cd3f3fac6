import type { Json, JsonObject, StoredObject } from '../store/object.js';
import type { WriteRecord } from '../store/store.js';
import type { TraceEntry } from '../sim/trace.js';
import type { Scenario } from './scenario.js';
import type { RunPhase, WorldView } from './world.js';
import type { RealTimerUse, RunEscape } from '../host/host-context.js';

/** One sample of a probe. @public */
export interface ProbeSample {
  t: number;
  ok: boolean;
  /** Why not, in words (when the predicate returned a string). */
  detail?: string;
  /** Facts the probe recorded for its judge (a built-in probe's structured findings). */
  data?: JsonObject;
  /** A probe checked after every write: the index in the run's writes of the write it followed (several writes share one virtual time). */
  write?: number;
}

/** What a probe may return besides `true`/`false`/a reason: the verdict plus facts for its judge. @public */
export interface ProbeResult {
  ok: boolean;
  detail?: string;
  data?: JsonObject;
}

/**
 * A predicate the harness evaluates during a run: every `everyMs` of virtual time in the given
 * phases, or after every store write (`everyMs: 'write'`). Returning a string means "false,
 * because …".
 * @public
 */
export interface Probe {
  name: string;
  everyMs: number | 'write';
  phases: ('faults' | 'settle' | 'tail')[];
  fn: (view: WorldView) => boolean | string | ProbeResult;
}

/** A downstream request as recorded (see the downstream module). @public */
export interface RecordedRequest {
  t: number;
  tEnd: number;
  actor: string;
  method: string;
  url: string;
  endpoint: string;
  status: number;
  outcome: string;
  mutating: boolean;
  fault?: string;
  applied?: boolean;
}

/** Everything a property may judge: the recorded run, plain data. @public */
export interface RunRecord {
  scenario: Scenario;
  controllers: string[];
  /** Primary kinds of the controllers. */
  primaryKinds: string[];
  /** The controllers run as processes of their own (hosted programs, `kubeController`); absent when none is. */
  programs?: string[];
  /**
   * Controllers whose `GenerationChanged` predicate also drops the resyncs of their primary (as
   * controller-runtime's does): for them, a dropped notification is repaired only by a new
   * generation or a restart. Absent when none has one.
   */
  resyncFilteredBy?: string[];
  trace: TraceEntry[];
  writes: WriteRecord[];
  /**
   * Indices in `writes` of the controller writes that changed nothing but time stamps of their
   * own moment (`status.lastSyncTime = now`): what no-hot-loop's stamping loop counts. Absent in
   * records made before it existed (none then).
   */
  stamped?: number[];
  /** Indices in `writes` of the controller writes that made their object bigger (etcd's count): what no-hot-loop's growing loop counts. Absent in records made before it existed. */
  grown?: number[];
  requests: RecordedRequest[];
  /** Objects at the end of the settle phase. */
  settledObjects: StoredObject[];
  /** Objects at the end of the run. */
  finalObjects: StoredObject[];
  probes: Record<string, ProbeSample[]>;
  timing: {
    faultWindowEnd: number;
    /** Last user action (ms). */
    lastActionAt: number;
    settleStart: number;
    /** Start of the quiet tail: extra reconciles and re-applied specs happen here. */
    tailStart: number;
    end: number;
    /** The run hit its step budget (a zero-time loop) and stopped at `stoppedAt`. */
    exhausted?: boolean;
    stoppedAt?: number;
    /**
     * The run was stopped at `at` because a property's failure was already certain (see
     * {@link RunMonitor}); `end` is then `at`, and only that property judges the run.
     */
    stoppedEarly?: {
      property: string;
      at: number;
      from: number;
      reason: string;
      /** The monitor said the prediction is prefix-closed (see {@link RunMonitor}): no full run confirms it. */
      certain?: true;
    };
    /** A wall-clock budget ran out mid-run: the run is incomplete and says nothing. */
    interrupted?: boolean;
  };
  /** Tasks given up on because they waited outside the simulation. */
  blocked: { label: string; at: number; startedAt: number }[];
  /** State of fake downstream services at the end. */
  downstream: unknown;
  hash: string;
  /**
   * What would have ended a real process, outside hosted programs (whose deaths are
   * `process:exit` trace entries): `process.exit`, uncaught exceptions and unhandled rejections
   * in the run's code. Any of them fails the run (`never-exits`). Kept out of the trace: one
   * thrown by a real timer happens at no particular virtual time.
   */
  escapes?: RunEscape[];
  /** Real timers the run's code created (cleared when the run ended), when it created any. */
  realTimers?: RealTimerUse;
}

/**
 * A property's verdict: it held (`ok: true`), it held because there was nothing in the run for it
 * to judge (`ok: true, judged: false`, with `why`: a run without a revert for `recovery`, without a
 * deletion for `deletion-completes`), or it failed. A check counts, per property, the runs it
 * judged and those it could not, and a check in which no property judged any run does not pass
 * (the CLI exits 2, `toPassCheck` throws): such a pass would say nothing. Build the second kind
 * with {@link nothingToJudge}.
 * @public
 */
export type Verdict =
  | {
      ok: true;
      /** The property judged the run (the default when absent). */
      judged?: true;
      stats?: JsonObject;
    }
  | {
      ok: true;
      /** Nothing in the run was the property's to judge: it held vacuously. */
      judged: false;
      /** Why, in words a controller author acts on ("the workload deletes nothing"). */
      why: string;
      stats?: JsonObject;
    }
  | {
      ok: false;
      /** One line. */
      summary: string;
      /** "Let: … Then: …", in words a controller author acts on. */
      explanation: string;
      evidence: JsonObject;
    };

/**
 * The verdict of a property that had nothing to judge in a run (no object of its kind, no
 * deletion, no revert, no claim): it holds, but says nothing.
 * @example if (deleted.length === 0) return nothingToJudge('nothing was deleted');
 * @public
 */
export function nothingToJudge(why: string, stats?: JsonObject): Verdict {
  return { ok: true, judged: false, why, ...(stats ? { stats } : {}) };
}

/**
 * Whether a verdict judged nothing, and why: `judged: false` (with `why`), or, from properties
 * written before that was typed, `stats.judged === false` (with `stats.reason`, if any).
 * Undefined for a verdict that judged the run (or failed).
 * @internal
 */
export function unjudgedReason(verdict: Verdict): { why: string | undefined } | undefined {
  if (!verdict.ok) return undefined;
  if (verdict.judged === false) return { why: verdict.why };
  if (verdict.stats?.['judged'] !== false) return undefined;
  const reason = verdict.stats['reason'];
  return { why: typeof reason === 'string' ? reason : undefined };
}

/** What a {@link RunMonitor} sees while the run happens. @public */
export interface LiveRun {
  /** Virtual time now. */
  now: number;
  phase: RunPhase;
  /** The trace so far (read-only; append-only). */
  trace: readonly TraceEntry[];
  /** Indices in the run's writes (its `store:write` entries, counted) of the controller writes that changed nothing but time stamps of their own moment. */
  stamped?: readonly number[];
  /** Indices in the run's writes of the controller writes that made their object bigger. */
  grown?: readonly number[];
  /** When the settle phase and the quiet tail begin. */
  timing: { settleStart: number; tailStart: number };
  view: WorldView;
}

/**
 * Watches a run while it happens and says when the property's failure is already certain, so
 * the run stops there instead of simulating a hot loop for the rest of its virtual time (a
 * failure found and shrunk in seconds). Called after every store write; `from` is where the
 * evidence begins. The property's `judge` then sees `run.timing.stoppedEarly`.
 * @public
 */
export interface RunMonitor {
  /**
   * `certain`: the prediction is prefix-closed, i.e. the judge fails every run that has this
   * prefix whatever happens after it (its evidence reads the same in any extension). Such a stop
   * counts at once. Any other stop is a guess that the check confirms by running the same scenario
   * to its end before it counts (one more full run): say `certain` only with an argument why.
   */
  afterWrite(run: LiveRun): { reason: string; from: number; certain?: boolean } | undefined;
}

/**
 * What a property's probes may know about the run they are built for (the harness passes it to
 * `probes(ctx)`; a harness that passes nothing gets probes that fall back to guessing).
 * @public
 */
export interface ProbeContext {
  /** Controller names, in scenario order. */
  controllers: string[];
  /** Primary kind (`for`) of each controller, in the same order. */
  primaryKinds: string[];
}

/**
 * Extra runs a property needs besides the run itself and the fault-free twin, by name: each is
 * a complete scenario the harness simulates with the same controllers and fault modules, and
 * whose record is handed to `judge` under the same name. `recovery` uses one.
 * @public
 */
export type ExtraRuns = Record<string, Scenario>;

/**
 * What a differential property learns from benign fault-free runs (Sieve's masks): named lists of
 * entries in words (`'Pod default/web-0: status.podIP'`). The harness caches them per scenario
 * shape, merges lists of the same name, and lists them in the check result.
 * @public
 */
export type LearnedMasks = Record<string, string[]>;

/**
 * Benign fault-free runs of a scenario: its fault-free twin and the same scenario under benign
 * variations (other legal event timings and list orders, an extra resync), and likewise for each
 * extra run the property asked for. What differs between them is path, not destination.
 * @public
 */
export interface BenignRuns {
  /** The twin first, then its variations. */
  twin: RunRecord[];
  /** Per extra run name: that run first, then its variations. */
  extras: Record<string, RunRecord[]>;
  /**
   * The twin's scenario run fault-free by a busy controller that never acted on a world its user
   * replaced within seconds (a key waiting in the workqueue); empty when the workload has no such
   * change. Only for properties that ask for it ({@link Property.learnsFromBusy}).
   */
  busy?: RunRecord[];
  /**
   * The twin's scenario run fault-free by a slow controller: one decision of a controller that
   * decides by the clock (it sets `requeueAfter` timers) held back by a second or more; empty for
   * a controller that sets none; and a key of a kind declared timing dependent held until just
   * past a change of its object ({@link Property.timingDependent}). Only for properties that ask for it ({@link Property.learnsFromSlow}).
   */
  slow?: RunRecord[];
  /**
   * The scenario fault-free in a world as slow as the run's: only the run's faults that slow the
   * world ({@link FaultModule.slowsTheWorld}), pinned to the objects they acted on, or the run
   * itself when those are all it had; empty when none acted. Only for properties that ask for
   * slow runs ({@link Property.learnsFromSlow}): an empty EndpointSlice deleted while the only
   * Ready Pod left, or how far a rollout got when its user changed it, follows the world's pace.
   */
  world?: RunRecord[];
  /**
   * The variations of `twin` (those after its first) again with lists in key order, index for
   * index: the same timing draws, no permutation. Only for properties that ask for them
   * ({@link Property.learnsFromKeyOrder}): what a shuffled variation makes beyond these and the
   * twin comes from list order alone.
   */
  keyOrder?: RunRecord[];
}

/** A configured property, ready to judge runs. @public */
export interface Property {
  readonly name: string;
  readonly description: string;
  readonly options: JsonObject;
  /** Needs the fault-free twin run of the same scenario. */
  readonly needsTwin: boolean;
  /** Probes the harness samples while simulating; pass the context when you can. */
  probes(ctx?: ProbeContext): Probe[];
  /** A monitor that stops a run once this property's failure is certain (see {@link RunMonitor}). */
  monitor?(ctx?: ProbeContext): RunMonitor;
  /**
   * A liveness property (a deletion completes, the world converges, no loop in the quiet tail):
   * wherever the harness runs the fault-free twin anyway, it judges the twin with it too, after
   * the run passed it. A controller that livelocks with no fault at all is often slowed by a
   * fault just enough to finish, so every run with faults passes; the twin's failure is reported
   * as the fault-free scenario's, whose reproduction has no fault.
   */
  readonly judgesFaultFreeTwin?: boolean;
  /** {@link Property.learn} is also given {@link BenignRuns.busy}. */
  readonly learnsFromBusy?: boolean;
  /** {@link Property.learn} is also given {@link BenignRuns.slow}. */
  readonly learnsFromSlow?: boolean;
  /** {@link Property.learn} is also given {@link BenignRuns.keyOrder}. */
  readonly learnsFromKeyOrder?: boolean;
  /**
   * Kinds whose end the user declared timing dependent: {@link BenignRuns.slow} then also holds
   * keys of these kinds until just past each of the user's changes of them (src/harness/twin.ts lagPoints).
   */
  readonly timingDependent?: readonly string[];
  /**
   * Extra scenarios to simulate for this run (see {@link ExtraRuns}); `{}` when none. The
   * harness calls it with the scenario being judged and passes the records to `judge`.
   */
  extraRuns?(scenario: Scenario): ExtraRuns;
  /**
   * Learns masks from benign fault-free runs (see {@link BenignRuns}). The harness calls it when
   * `judge` fails without them, caches the result per scenario shape, and judges again with it.
   */
  learn?(benign: BenignRuns): LearnedMasks;
  /**
   * Judges one run; `extras` holds the records of {@link Property.extraRuns}, by name; `learned`
   * the masks {@link Property.learn} gave for runs of this shape (absent: none learned yet).
   */
  judge(run: RunRecord, twin: RunRecord | undefined, extras?: Readonly<Record<string, RunRecord>>, learned?: LearnedMasks): Verdict;
  /**
   * Problems with the configuration seen over every run judged so far (a user mask that matched no
   * path in any run, with the nearest path); `check` throws a TypeError naming them when it ends.
   */
  problems?(): string[];
}

/** Definition accepted by {@link defineProperty}. @public */
export interface PropertyDefinition<O extends object> {
  name: string;
  description: string;
  defaults: O;
  /** Needs the fault-free twin run (a function: depending on the resolved options). @defaultValue false */
  needsTwin?: boolean | ((options: O) => boolean);
  /**
   * Checks resolved options once, when the property is configured: returns why they are wrong
   * (the factory throws a TypeError naming the property) or undefined.
   */
  validate?: (options: O) => string | undefined;
  probes?: (options: O, ctx: ProbeContext | undefined) => Probe[];
  /** Stops a run early once the failure is certain (see {@link RunMonitor}); the judge must then judge the shortened run. */
  monitor?: (options: O, ctx: ProbeContext | undefined) => RunMonitor;
  extraRuns?: (scenario: Scenario, options: O) => ExtraRuns;
  /** See {@link Property.judgesFaultFreeTwin}. @defaultValue false */
  judgesFaultFreeTwin?: boolean;
  /** See {@link Property.learnsFromBusy}. @defaultValue false */
  learnsFromBusy?: boolean;
  /** See {@link Property.learnsFromSlow}. @defaultValue false */
  learnsFromSlow?: boolean;
  /** See {@link Property.learnsFromKeyOrder}. @defaultValue false */
  learnsFromKeyOrder?: boolean;
  /** See {@link Property.timingDependent}; called with the resolved options. */
  timingDependent?: (options: O) => readonly string[];
  /** See {@link Property.learn}. */
  learn?: (benign: BenignRuns, options: O) => LearnedMasks;
  judge: (run: RunRecord, options: O, twin: RunRecord | undefined, extras: Readonly<Record<string, RunRecord>>, learned: LearnedMasks | undefined) => Verdict;
  /** See {@link Property.problems}; called with the resolved options. */
  problems?: (options: O) => string[];
}

/** A property factory: `convergence({ stableFor: 3 })`. @public */
export type PropertyFactory<O extends object> = ((options?: Partial<O>) => Property) & { readonly propertyName: string; readonly description: string };

/** Defines a property (an oracle): a pure judge of a recorded run. @public */
/** The built-in property factories (registered once, by properties/index.ts), their names, and the properties they made. */
const builtInFactories = new WeakSet<object>();
const builtInNames = new Set<string>();
const builtInProperties = new WeakSet<Property>();
/** Built-ins whose options hold no function of the user's (a predicate runs user code on the run). */
const withoutUserCode = new WeakSet<Property>();
let builtInsRegistered = false;

/**
 * Registers the built-in property factories, once (properties/index.ts does, before any user
 * code loads): the properties they make are told apart from look-alikes, a property of the user's
 * that takes a built-in's name and so would make a pass read as the built-in's (red team stop 42).
 * @internal
 */
export function registerBuiltInProperties(factories: readonly PropertyFactory<object>[]): void {
  if (builtInsRegistered) throw new Error('steadystate: the built-in properties are registered once, by steadystate itself');
  builtInsRegistered = true;
  for (const f of factories) {
    builtInFactories.add(f);
    builtInNames.add(f.propertyName);
  }
}

/**
 * A property one of steadystate's own factories made with options that hold no function: no code
 * of the user's runs while it judges, so it is trusted not to edit the run. @internal
 */
export function judgesWithoutUserCode(p: Property): boolean {
  return withoutUserCode.has(p);
}

/** A property named like a built-in that no built-in factory made. @internal */
export function isLookAlikeProperty(p: Property): boolean {
  return builtInNames.has(p.name) && !builtInProperties.has(p);
}

export function defineProperty<O extends object>(def: PropertyDefinition<O>): PropertyFactory<O> {
  if (!/^[a-z][a-z0-9-]*$/.test(def.name)) throw new TypeError(`steadystate.defineProperty: name must be kebab-case (the file name), got ${JSON.stringify(def.name)}`);
  const factory = (options?: Partial<O>): Property => {
    if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options))) {
      throw new TypeError(`steadystate.properties.${camel(def.name)}: expected an options object, got ${JSON.stringify(options)}`);
    }
    const resolved = { ...def.defaults } as O;
    // an explicit `undefined` keeps the default (exactOptionalPropertyTypes callers may pass one)
    for (const [k, v] of Object.entries(options ?? {})) if (v !== undefined) (resolved as Record<string, unknown>)[k] = v;
    const bad = def.validate?.(resolved);
    if (bad !== undefined) throw new TypeError(`steadystate.properties.${camel(def.name)}: ${bad}`);
    const extraRuns = def.extraRuns;
    const monitor = def.monitor;
    const learn = def.learn;
    const problems = def.problems;
    const property: Property = {
      name: def.name,
      description: def.description,
      options: toJson(resolved),
      needsTwin: typeof def.needsTwin === 'function' ? def.needsTwin(resolved) : (def.needsTwin ?? false),
      probes: (ctx) => (def.probes ? def.probes(resolved, ctx) : []),
      ...(monitor ? { monitor: (ctx?: ProbeContext) => monitor(resolved, ctx) } : {}),
      extraRuns: (scenario) => (extraRuns ? extraRuns(scenario, resolved) : {}),
      ...(learn ? { learn: (benign: BenignRuns) => learn(benign, resolved) } : {}),
      ...(def.judgesFaultFreeTwin ? { judgesFaultFreeTwin: true } : {}),
      ...(def.learnsFromBusy ? { learnsFromBusy: true } : {}),
      ...(def.learnsFromSlow ? { learnsFromSlow: true } : {}),
      ...(def.learnsFromKeyOrder ? { learnsFromKeyOrder: true } : {}),
      ...(def.timingDependent && def.timingDependent(resolved).length > 0 ? { timingDependent: def.timingDependent(resolved) } : {}),
      judge: (run, twin, extras, learned) => def.judge(run, resolved, twin, extras ?? {}, learned),
      ...(problems ? { problems: () => problems(resolved) } : {}),
    };
    if (builtInFactories.has(branded)) {
      builtInProperties.add(property);
      if (!holdsFunction(resolved)) withoutUserCode.add(property);
    }
    return property;
  };
  const branded = Object.assign(factory, { propertyName: def.name, description: def.description });
  return branded;
}

function holdsFunction(value: unknown, depth = 0): boolean {
  if (typeof value === 'function') return true;
  if (typeof value !== 'object' || value === null || depth > 8) return false;
  for (const v of Object.values(value)) if (holdsFunction(v, depth + 1)) return true;
  return false;
}

function camel(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Options as plain JSON for reports: functions (user predicates) become `'<function>'`. */
function toJson(o: object): JsonObject {
  return toJsonValue(o) as JsonObject;
}

function toJsonValue(v: unknown): Json {
  if (typeof v === 'function') return '<function>';
  if (v === null || typeof v !== 'object') return typeof v === 'number' && !Number.isFinite(v) ? String(v) : ((v ?? null) as Json);
  if (Array.isArray(v)) return v.map(toJsonValue);
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = toJsonValue(x);
  return out;
}
