import { thrownMessage } from '../sim/thrown.js';
import type { JsonObject } from '../store/object.js';
import { judgesWithoutUserCode, unjudgedReason, type BenignRuns, type LearnedMasks, type Property, type RunRecord, type Verdict } from './property.js';
import { resolveScenarioOptions, type Scenario } from './scenario.js';
import { simulate, type SimulateOptions } from './simulate.js';
import { runGuards } from './run-guards.js';
import { reverseSimultaneous } from './user-actions.js';
import { inputKinds, installVariation, LearnedCache, scenarioShape, TwinRunner, twinScenario, type BenignVariation } from './twin.js';
import { wireParagraph } from './wire-story.js';
import { NEVER_EXITS } from './escape-verdict.js';
import { readOnlyHint, sealRun, sealValue } from './sealed-run.js';

/** A property that did not hold on a run. @internal */
export interface PropertyFailure {
  property: string;
  summary: string;
  explanation: string;
  evidence: JsonObject;
  /**
   * The failure is the fault-free twin's, not the run's: with every fault removed the scenario
   * fails a liveness property the run with faults passed (see {@link Property.judgesFaultFreeTwin}). The
   * failing scenario is then `twinScenario(run.scenario)`, and its run the outcome's `twin`.
   */
  faultFree?: true;
}

/**
 * Whether `p` also judges the fault-free twin ({@link Property.judgesFaultFreeTwin}: the built-in
 * liveness properties no-hot-loop, convergence and deletion-completes). A controller that
 * livelocks with no fault at all (re-creating at once what the collector deletes under a
 * Foreground delete, so the owner's deletion never completes) is often slowed by a fault just
 * enough to finish, and every faulty run then passes (red team rt46 M-2). The twin is a whole
 * fault-free run of the same scenario (faults never change a run's timing), so its failure is the
 * fault-free scenario's own; the benign variations (holds, late keys) are never judged.
 */
function judgesTwin(p: Property): boolean {
  return p.judgesFaultFreeTwin === true;
}

/**
 * The scenario and run that fail: for a failure of the fault-free twin, the twin's (a scenario
 * with no fault, which fails on its own: shrinking, the reproduction and replay need no twin).
 * @internal
 */
export function failingRun(outcome: ScenarioOutcome): { scenario: Scenario; run: RunRecord } {
  const twin = outcome.twin;
  if (outcome.failure?.faultFree === true && twin !== undefined) return { scenario: twin.scenario, run: twin };
  return { scenario: outcome.run.scenario, run: outcome.run };
}

/**
 * A failure of the fault-free run in words that say so: the scenario fails with no fault at all
 * (the run with faults passed it, so no fault is its cause).
 * @internal
 */
export function faultFreeFailure(f: PropertyFailure): PropertyFailure {
  return {
    ...f,
    summary: `the fault-free run of this scenario fails ${f.property}, with no fault at all: ${f.summary}`,
    explanation: `The scenario's fault-free run (every fault removed: the twin the differential properties compare with) fails ${f.property} on its own, so no fault is the cause; the run with faults passed it: its faults hid the bug (a delay or a crash can slow a controller just enough for the world to finish what it never finishes unhindered). The reported scenario has no fault.\n${f.explanation}`,
    evidence: { ...f.evidence, faultFree: true },
    faultFree: true,
  };
}

/** Whether a run failed by a monitor's guess: stopped early for the property that failed, by a prediction not declared certain. @internal */
export function guessedStop(outcome: ScenarioOutcome): boolean {
  const stop = outcome.run.timing.stoppedEarly;
  return stop !== undefined && stop.certain !== true && stop.property === outcome.failure?.property;
}

/** One judged scenario. @internal */
export interface ScenarioOutcome {
  run: RunRecord;
  /** The fault-free twin, when a property or coverage needed it. */
  twin: RunRecord | undefined;
  failure: PropertyFailure | undefined;
  /** Every failing property, in order, when judged with `all` (else at most the first). */
  failures: PropertyFailure[];
  /** Latency to convergence (virtual ms), when the convergence property reported it. */
  latencyMs?: number;
  /** A wall-clock budget ran out mid-run: nothing was judged. */
  interrupted?: boolean;
}

/** What to judge a scenario with. @internal */
export interface JudgeOptions {
  /** @defaultValue every property of the runner */
  properties?: readonly Property[];
  /** Also run the twin when some fault fired (fault coverage). @defaultValue false */
  twinWhenFaultsFired?: boolean;
  /** Let {@link ScenarioRunner.shouldInterrupt} cut the run short (never twins or re-runs). @defaultValue false */
  interruptible?: boolean;
  /** Count the verdicts in {@link ScenarioRunner.tally} (the check's own runs, not shrink candidates). @defaultValue false */
  tally?: boolean;
  /** Let the properties' monitors stop the run once a failure looks certain. @defaultValue {@link ScenarioRunner.earlyStop} */
  earlyStop?: boolean | 'certain';
  /** Judge every property instead of stopping at the first failure (false-alarm measurements). @defaultValue false */
  all?: boolean;
  /** Let the runner's `observe` (behaviour coverage) watch the run: only runs whose facts are read need it, not shrink candidates. @defaultValue false */
  observe?: boolean;
  /**
   * Keep the fault-free twin in the twin cache. A generated run of swarm search has a fresh seed,
   * so no later run asks for its twin again: kept, it would only stay alive (and be copied by the
   * garbage collector) until 32 twins later. @defaultValue true
   */
  rememberTwin?: boolean;
}

/** Per property, over the runs a check counted: how many it judged, how many it could not (and why), and the wall ms its judge took. @internal */
export interface PropertyTally {
  judged: number;
  unjudged: number;
  /** Why it could not judge, the first time. */
  reason: string | undefined;
  ms: number;
}

/**
 * Runs scenarios and judges them with properties: the single place where `check`, shrinking,
 * the determinism self-check and systematic mode turn a scenario into a verdict.
 * @internal
 */
export class ScenarioRunner {
  readonly twins: TwinRunner;
  /** Masks differential properties learned from benign runs, per scenario shape. */
  readonly learned = new LearnedCache();
  /** Per property: runs it said it could not judge (`judged: false` with a reason starting "could not judge"), and the first reason. */
  readonly unjudged = new Map<string, { runs: number; reason: string }>();
  /** Simulations run (scenarios and twins). */
  simulations = 0;
  /** Called before every simulation (a heartbeat for watchdogs). */
  onSimulate: ((scenario: Scenario) => void) | undefined;
  /** Asked at each host yield of an interruptible run: true ends it (a wall-clock budget ran out). */
  shouldInterrupt: (() => boolean) | undefined;
  /** Called at each host yield of every run (a heartbeat for watchdogs during long runs). */
  onHeartbeat: (() => void) | undefined;
  /**
   * The caller's cancellation (`check`'s `signal`): once aborted, every run (twins and re-runs too)
   * stops at its next host yield and {@link simulate} throws the signal's reason, so nothing
   * after it judges a cut-short run.
   */
  signal: AbortSignal | undefined;
  /** Verdicts per property over the runs judged with `tally`. */
  readonly tally = new Map<string, PropertyTally>();
  /** Whether runs may stop early (property monitors); a check whose early stop a full run disproved turns it off. */
  earlyStop = true;

  private readonly simulateOptions: SimulateOptions;
  /**
   * The properties whose probes a twin runs: only a property given the twin (`needsTwin`) may
   * read the twin's samples (convergence reads which kinds report observedGeneration); the
   * others' probes would sample every twin for nothing (probes add no trace entries, so the twin
   * is the same run without them).
   */
  private readonly twinProperties: readonly Property[];
  /** The fault kinds that only slow the world ({@link FaultModule.slowsTheWorld}): a run kept to them is benign. */
  private readonly slowKinds: ReadonlySet<string>;
  /** Watches the worlds of the runs judged with `observe` (behaviour coverage); twins, re-runs and extra runs go unwatched. */
  private readonly observe: SimulateOptions['observe'];

  constructor(
    simulateOptions: SimulateOptions,
    readonly properties: readonly Property[],
  ) {
    const { observe, ...rest } = simulateOptions;
    this.simulateOptions = rest;
    // and those judged on the twin too (a user predicate of convergence's, when none needs the twin, is sampled on it)
    this.twinProperties = properties.filter((p) => p.needsTwin || judgesTwin(p));
    this.slowKinds = new Set((simulateOptions.faults ?? []).filter((f) => f.slowsTheWorld === true).map((f) => f.kind));
    this.observe = observe;
    // twins are complete runs: a differential property compares whole end states
    this.twins = new TwinRunner(
      (s) => this.simulate(s, this.twinProperties, false),
      32,
      (s, v) => this.simulateVariation(s, v),
    );
  }

  /** Runs a fault-free scenario under a benign variation (no probes: only its end state and writes are read). */
  private async simulateVariation(scenario: Scenario, v: BenignVariation): Promise<RunRecord> {
    const signal = this.signal;
    signal?.throwIfAborted();
    this.simulations++;
    this.onSimulate?.(scenario);
    const window = resolveScenarioOptions(scenario.options).faultWindowMs;
    const varied = v.reverse ? { ...scenario, workload: reverseSimultaneous(scenario.workload) } : scenario;
    const { run } = await simulate(varied, { ...this.simulateOptions, properties: [], install: [...(this.simulateOptions.install ?? []), (w) => installVariation(w, v, window)], ...(signal ? { onYield: () => signal.aborted } : {}) });
    signal?.throwIfAborted();
    return run;
  }

  /** The benign runs of a scenario for a property: its twin and the twin's variations, and likewise for each extra run. */
  private async benignRuns(twin: RunRecord, extras: Record<string, RunRecord> | undefined, p: Property, run: RunRecord): Promise<BenignRuns> {
    const out: BenignRuns = {
      twin: [twin, ...(await this.twins.variationsOf(twin.scenario))],
      extras: {},
      ...(p.learnsFromBusy === true ? { busy: await this.twins.busyOf(twin.scenario, inputKinds(this.simulateOptions.controllers, twin.scenario)) } : {}),
      ...(p.learnsFromSlow === true
        ? { slow: [...(await this.twins.slowOf(twin, this.simulateOptions.controllers)), ...(await this.twins.phaseOf(twin, run, this.simulateOptions.controllers)), ...(await this.twins.acceptedOf(twin, run)), ...(await this.twins.lagOf(twin, this.simulateOptions.controllers, p.timingDependent ?? [])), ...(await this.twins.idleOf(twin, run, this.simulateOptions.controllers, p.timingDependent ?? [], this.slowKinds))] }
        : {}),
      ...(p.learnsFromSlow === true ? { world: await this.twins.worldOf(run, this.slowKinds) } : {}),
      ...(p.learnsFromKeyOrder === true ? { keyOrder: await this.twins.keyOrderOf(twin.scenario) } : {}),
    };
    for (const [name, r] of Object.entries(extras ?? {})) out.extras[name] = [r, ...(await this.twins.variationsOf(r.scenario))];
    return out;
  }

  /**
   * Runs one scenario with the probes of `properties`; with `earlyStop`, their monitors may end
   * it once a failure is certain (the same scenario stops at the same point every time).
   */
  async simulate(scenario: Scenario, properties: readonly Property[] = this.properties, earlyStop: boolean | 'certain' = this.earlyStop, interruptible = false, observe = false): Promise<RunRecord> {
    const signal = this.signal;
    signal?.throwIfAborted();
    this.simulations++;
    this.onSimulate?.(scenario);
    const interrupt = interruptible ? this.shouldInterrupt : undefined;
    const beat = this.onHeartbeat;
    const onYield = interrupt || beat || signal ? () => (beat?.(), signal?.aborted === true || interrupt?.() === true) : undefined;
    const { run } = await simulate(scenario, { ...this.simulateOptions, properties, earlyStop, ...(onYield ? { onYield } : {}), ...(observe && this.observe ? { observe: this.observe } : {}) });
    signal?.throwIfAborted();
    return run;
  }

  /** Runs and judges one scenario; stops at the first property that fails. */
  async judge(scenario: Scenario, options: JudgeOptions = {}): Promise<ScenarioOutcome> {
    const properties = options.properties ?? this.properties;
    const run = await this.simulate(scenario, properties, options.earlyStop ?? this.earlyStop, options.interruptible ?? false, options.observe ?? false);
    return this.judgeRun(run, options);
  }

  /**
   * A run stopped early has a verdict its monitor predicted, not one the property judged on a
   * whole run (a burst of a thousand writes may still end before the quiet tail). Before such a
   * verdict is reported, the same scenario runs to its end: the property's failure there is the
   * confirmation (its summary), `null` means the early stop was wrong. Runs not stopped early
   * (or stopped for another property) need no confirmation: `undefined`.
   */
  async confirmEarlyStop(run: RunRecord, property: Property): Promise<PropertyFailure | null | undefined> {
    if (run.timing.stoppedEarly?.property !== property.name) return undefined;
    // a certain prediction is prefix-closed (the judge fails every run with that prefix): the rerun
    // goes to it, not past it, where a growing loop's object would cost the square of its length
    // to simulate (red team round 9, L-1: the check never ended). A guess is run on past, to the
    // property's certain stop if it comes (a fight's first hand-over in the quiet tail) or the end:
    // the same verdict the whole run gets, without simulating the rest of a fight.
    const full = await this.judge(run.scenario, { properties: [property], earlyStop: 'certain' });
    return full.failure?.property === property.name ? full.failure : null;
  }

  /**
   * {@link confirmEarlyStop} for a shrunk failure (`check` and `checkSystematic` both): a guess must
   * not decide the verdict through shrinking (its wall-clock budget, its options). When the run
   * that found the failure stopped at a guess (`guessed`) and shrinking moved away from its
   * scenario (`original`), a confirmed smaller scenario would fail where no shrinking (a budget cut
   * at once, `shrink: false`) reruns the found one without early stops: rt46's deploy-putter, seed
   * 9, run 20 (h47). So the found scenario's own run decides, as when nothing was shrunk: it runs on
   * past guesses, to a certain prediction or its end, and only here (a certain stop, or nothing
   * shrunk, costs nothing more).
   */
  async confirmShrunkEarlyStop(minimal: RunRecord, property: Property, found: { original: Scenario; guessed: boolean }): Promise<PropertyFailure | null | undefined> {
    const confirmed = await this.confirmEarlyStop(minimal, property);
    if (!confirmed || !found.guessed || JSON.stringify(minimal.scenario) === JSON.stringify(found.original)) return confirmed;
    const own = await this.judge(found.original, { properties: [property], earlyStop: 'certain' });
    return own.failure?.property === property.name ? confirmed : null;
  }

  /**
   * The outcome to shrink, report and replay for a failure of the fault-free twin: the scenario
   * with no fault, judged by the failing property alone, as shrinking and `replay` judge it (its
   * monitor may stop it early, where the twin ran to its end: the determinism check compares the
   * run with a re-run made that way). The twin's own outcome when that judgement differs.
   */
  async faultFreeOutcome(outcome: ScenarioOutcome, property: Property | undefined): Promise<ScenarioOutcome> {
    const f = failingRun(outcome);
    const fallback: ScenarioOutcome = { ...outcome, run: f.run, twin: f.run };
    if (!property || f.run === outcome.run) return fallback;
    const again = await this.judge(f.scenario, { properties: [property] });
    return again.failure?.property === property.name ? again : fallback;
  }

  /** Judges an existing run (its scenario is `run.scenario`). */
  async judgeRun(run: RunRecord, options: JudgeOptions = {}): Promise<ScenarioOutcome> {
    const properties = options.properties ?? this.properties;
    let twin: RunRecord | undefined;
    const remember = options.rememberTwin ?? true;
    const getTwin = async () => (twin ??= remember || !hasFaults(run.scenario) ? await this.twins.twinOf(run.scenario, run) : await this.simulate(twinScenario(run.scenario), this.twinProperties, false));
    const failures: PropertyFailure[] = [];
    let latencyMs: number | undefined;
    if (Object.hasOwn(run.timing, 'interrupted') && run.timing.interrupted) return { run, twin: undefined, failure: undefined, failures: [], interrupted: true };
    // a run stopped early is judged by the property whose failure was certain (the others would judge a cut-short run)
    const stopped = run.timing.stoppedEarly;
    const judges = stopped ? properties.filter((p) => p.name === stopped.property) : properties;
    // the scenario's shapes (with and without busy windows), made once and only when a learned mask is looked up
    const shapes: (string | undefined)[] = [];
    const shapeOf = (busy: boolean) => (shapes[busy ? 1 : 0] ??= scenarioShape(run.scenario, busy ? inputKinds(this.simulateOptions.controllers, run.scenario) : undefined));
    // the liveness properties the run passed, not yet judged on the twin: judged there as soon as
    // the twin is run (before a differential property compares with a twin that never finished)
    const pending: Property[] = [];
    const twinFailure = (): PropertyFailure | undefined => {
      if (twin === undefined || pending.length === 0) return undefined;
      const judged = pending.splice(0);
      // a fault-free run is its own twin (judged already); a twin cut short would be judged on a part
      if (twin === run || twin.timing.stoppedEarly !== undefined || twin.timing.interrupted === true) return undefined;
      for (const p of judged) {
        if (!judgesWithoutUserCode(p)) sealRun(twin);
        const verdict = judgeSafely(p, twin, twin, undefined);
        if (!verdict.ok) return faultFreeFailure({ property: p.name, summary: verdict.summary, explanation: verdict.explanation, evidence: verdict.evidence });
      }
      return undefined;
    };
    // the run guards first: a run that escaped the simulation says nothing its properties could judge
    for (const p of [...runGuards.filter((g) => !judges.includes(g)), ...judges]) {
      const clock = this.simulateOptions.wallClock;
      const t0 = clock?.();
      // code of the user's (a property, or a predicate given to a built-in) judges read-only records (see sealed-run.ts)
      const untrusted = !judgesWithoutUserCode(p) && !runGuards.includes(p);
      if (untrusted) sealRun(run);
      const extras = await this.extraRuns(p, run.scenario);
      const t = p.needsTwin ? await getTwin() : undefined;
      const stuck = twinFailure();
      if (stuck) {
        failures.push(stuck);
        if (!options.all) break;
      }
      if (untrusted) {
        if (t) sealRun(t);
        for (const r of Object.values(extras ?? {})) sealRun(r);
      }
      // masks already learned for this shape first; learn this scenario's only when they are not enough
      let learned: LearnedMasks | undefined = p.learn && this.learned.learnedFor(p.name) ? this.learned.get(p.name, shapeOf(p.learnsFromBusy === true)) : undefined;
      let verdict = judgeSafely(p, run, t, extras, learned);
      if (!verdict.ok && p.learn && t) {
        const benign = await this.benignRuns(t, extras, p, run);
        if (untrusted) sealValue(benign);
        const mine = learnSafely(p, benign);
        if (mine) {
          learned = this.learned.add(p.name, shapeOf(p.learnsFromBusy === true), mine);
          verdict = judgeSafely(p, run, t, extras, learned);
        }
      }
      if (options.tally) this.count(p.name, verdict, t0 === undefined || !clock ? 0 : clock() - t0);
      // judging a long run takes seconds of synchronous work per property (no simulation step,
      // so no heartbeat): the CLI's wall-clock watchdog must not take a slow judge on a loaded
      // host for a hung reconcile (h47: no-hot-loop judged rt46's deploy-putter run 20 for 15 s)
      this.onHeartbeat?.();
      if (!verdict.ok) {
        // a hosted program's failure reads better with what it did on the wire
        const wire = wireParagraph(run.trace, { exits: p.name !== NEVER_EXITS });
        failures.push({ property: p.name, summary: verdict.summary, explanation: wire ? `${verdict.explanation}
${wire}` : verdict.explanation, evidence: verdict.evidence });
        if (options.all) continue;
        break;
      }
      const reason = unjudgedReason(verdict)?.why;
      if (reason !== undefined && reason.startsWith('could not judge')) {
        const u = this.unjudged.get(p.name);
        if (u) u.runs++;
        else this.unjudged.set(p.name, { runs: 1, reason });
      }
      const l = verdict.stats?.['latencyMs'];
      if (typeof l === 'number') latencyMs = l;
      if (!judgesTwin(p) || stopped) continue;
      pending.push(p);
      const stuckNow = twinFailure();
      if (stuckNow) {
        failures.push(stuckNow);
        if (!options.all) break;
      }
    }
    if (stopped && failures.length === 0) failures.push({ property: stopped.property, summary: stopped.reason, explanation: `Let: the run be stopped at t=${stopped.at} ms because ${stopped.property}'s failure was certain. Then: ${stopped.reason}.`, evidence: { stoppedEarly: stopped } });
    // a cut-short run has no comparable twin (coverage compares whole runs)
    if (options.twinWhenFaultsFired && !stopped && twin === undefined && firedAny(run)) await getTwin();
    // a twin run for a differential property or for coverage: the liveness properties the run passed judge it too
    if (failures.length === 0 || options.all) {
      const stuck = twinFailure();
      if (stuck) failures.push(stuck);
    }
    return { run, twin, failure: failures[0], failures, ...(latencyMs !== undefined ? { latencyMs } : {}) };
  }

  private count(name: string, verdict: Verdict, ms: number): void {
    const t = this.tally.get(name) ?? { judged: 0, unjudged: 0, reason: undefined, ms: 0 };
    const unjudged = unjudgedReason(verdict);
    if (unjudged) {
      t.unjudged++;
      t.reason ??= unjudged.why;
    } else t.judged++;
    t.ms += ms;
    this.tally.set(name, t);
  }

  /** Simulates the extra scenarios a property asks for (e.g. recovery's reverted spec). */
  private async extraRuns(p: Property, scenario: Scenario): Promise<Record<string, RunRecord> | undefined> {
    const wanted = p.extraRuns?.(scenario);
    if (!wanted) return undefined;
    const names = Object.keys(wanted);
    if (names.length === 0) return undefined;
    const out: Record<string, RunRecord> = {};
    for (const name of names.sort()) out[name] = await this.simulate(wanted[name]!, [p], false);
    return out;
  }
}

function hasFaults(s: Scenario): boolean {
  return s.faults.events.length > 0 || s.faults.background.length > 0;
}

function firedAny(run: RunRecord): boolean {
  for (const e of run.trace) if (e.type === 'fault:inject') return true;
  return false;
}

/** Learning that throws teaches nothing; the judgement without it stands. */
function learnSafely(p: Property, benign: BenignRuns): LearnedMasks | undefined {
  try {
    return p.learn?.(benign);
  } catch {
    return undefined;
  }
}

/** A property whose judge throws is reported as failing, with the error: it must not crash the check. */
function judgeSafely(p: Property, run: RunRecord, twin: RunRecord | undefined, extras: Record<string, RunRecord> | undefined, learned?: LearnedMasks): Verdict {
  try {
    return p.judge(run, twin, extras, learned);
  } catch (err) {
    const message = thrownMessage(err);
    return {
      ok: false,
      summary: `the property "${p.name}" threw while judging the run`,
      explanation: `Let: the run of this scenario be judged by "${p.name}". Then: its judge threw ${err instanceof Error ? err.name : 'a value'}: ${message}. This is a bug in the property (or in a predicate you passed to it), not a verdict on the reconciler.${readOnlyHint(err)}`,
      evidence: { error: message },
    };
  }
}
