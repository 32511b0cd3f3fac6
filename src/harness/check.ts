import fc from 'fast-check';
import type { ControllerDefinition } from '../runtime/define-controller.js';
import { scenario as scenarioArbitrary } from '../arbitrary/scenario.js';
import { resolveCheckOptions, type CheckOptions, type ResolvedCheckOptions } from './check-options.js';
import type { BehaviourCoverageReport, CheckFailed, CheckPassed, CheckResult, DeterminismReport } from './check-result.js';
import { CoverageTracker } from './coverage.js';
import { checkDeterminism } from './determinism.js';
import { minimize } from './minimize.js';
import type { Property, RunRecord } from './property.js';
import type { ControllerRef, EnvironmentRef, Scenario } from './scenario.js';
import { faultFreeFailure, guessedStop, ScenarioRunner, type PropertyFailure, type ScenarioOutcome } from './scenario-runner.js';
import { runGuards } from './run-guards.js';
import { describeInputs, type RecordedInputs } from './recorded-inputs.js';
import { inShard, shardSize } from './shard.js';
import { BehaviourObserver, CoverageMap, runCoverage } from './guided/behaviour-coverage.js';
import { ScenarioPool, strategiesFor } from './guided/pool.js';
import { smallerPlan } from './systematic-strategies/smaller-plan.js';
import { aimAtSites, wantsAim } from './aim.js';
import { twinScenario } from './twin.js';
import type { SystematicStrategy } from './systematic-plans.js';
import { faultGenContext, type ScenarioArbitraryOptions } from '../arbitrary/scenario.js';
import { runStats, StatsCollector } from './stats.js';
import type { RealTimerUse } from '../host/host-context.js';

interface Found {
  scenario: Scenario;
  outcome: ScenarioOutcome;
  /** 1-based run number. */
  runNumber: number;
  fromCorpus: boolean;
  /** The scenario as first found, before any shrinking. */
  original: Scenario;
  /** The run that first failed stopped at a monitor's guess (a prediction not declared certain). */
  guessed: boolean;
}

/**
 * Property-based check of one controller (or several sharing the world): generates scenarios
 * with fast-check, runs each in the simulation, judges it with the properties, and on the first
 * failure shrinks it — fast-check's structural shrink, then {@link minimize} (background
 * injections made concrete, delta debugging) — and re-runs the minimal scenario to prove it
 * replays. Never throws because a property failed: the result says so. Throws `TypeError` for
 * unusable options, naming the option and the fix.
 *
 * This harness-level `check` uses exactly the faults and properties it is given (none by
 * default); the public `check` fills in the built-in catalogues.
 * @example
 * ```ts
 * const result = await check(edgeTriggered, { faults: [eventLoss], properties: [convergence()], objects });
 * if (!result.ok) console.log(result.explanation);
 * ```
 * @public
 */
export async function check(target: ControllerDefinition | readonly ControllerDefinition[], options: CheckOptions = {}): Promise<CheckResult> {
  return new CheckRun(resolveCheckOptions(target, options)).run();
}

class CheckRun {
  private readonly runner: ScenarioRunner;
  private readonly stats = new StatsCollector();
  private readonly coverage: CoverageTracker;
  private executed = 0;
  private lastRun: RunRecord | undefined;
  private corpusReplayed = 0;
  private determinismChecked = 0;
  /** A run that did not replay; `failed` when it had also failed a property (then nothing is shrunk). */
  private nondeterministic: { report: DeterminismReport; run: RunRecord; runNumber: number; failed?: PropertyFailure } | undefined;
  private readonly total: number;
  /** 0-based index of the generated run being judged (for `onSimulation`), undefined otherwise. */
  private runIndex: number | undefined;
  /** Behaviour coverage of the generated runs, and the facts known after each. */
  private readonly observer = new BehaviourObserver();
  private readonly behaviour = new CoverageMap();
  private readonly growth: number[] = [];
  /** Guided search: the pool of coverage-adding scenarios the generated runs mutate. */
  private readonly pool: ScenarioPool | undefined;
  /** Swarm search: the strategies fault events are aimed with (none: every event as drawn), and each generated scenario's aimed one. */
  private readonly aimWith: readonly SystematicStrategy[];
  private readonly aims = new WeakMap<Scenario, Scenario>();
  /** Scenarios whose twin aiming ran (and the twin cache keeps). */
  private readonly twinMade = new WeakSet<Scenario>();
  private readonly inputs: RecordedInputs;
  /** Wall-clock deadline of the phase in progress (search, then shrinking), when a budget is set. */
  private deadline: number | undefined;
  private readonly started: number;
  private cutShort: CheckFailed['cutShort'];

  /** @param earlyStop - false once a full run disproved an early stop: every run then goes to its end */
  constructor(
    private readonly o: ResolvedCheckOptions,
    earlyStop = true,
  ) {
    this.runner = new ScenarioRunner(
      {
        controllers: o.controllers,
        faults: o.faults,
        environment: o.environment.map((e) => e.actor),
        ...(o.downstream ? { downstream: o.downstream } : {}),
        tailMs: o.tailMs,
        traceReads: o.traceReads,
        ...(o.validation ? { validation: o.validation } : {}),
        ...(o.wallClock ? { wallClock: o.wallClock } : {}),
        observe: this.observer.observe,
      },
      o.properties,
    );
    this.runner.earlyStop = earlyStop;
    this.runner.shouldInterrupt = () => this.expired();
    this.runner.signal = o.signal;
    this.runner.onHeartbeat = o.onHeartbeat;
    this.started = o.wallClock?.() ?? 0;
    if (o.timeLimitMs !== undefined && o.wallClock) this.deadline = this.started + o.timeLimitMs;
    this.coverage = new CoverageTracker(o.faults.map((f) => f.kind));
    this.pool = o.search === 'guided' ? new ScenarioPool(this.behaviour, strategiesFor(o.faults)) : undefined;
    this.aimWith = o.search === 'swarm' && o.aimFaults ? strategiesFor(o.faults) : [];
    this.inputs = describeInputs({ ...o, environment: o.environment.map((e) => e.actor) });
    this.total = this.corpus().length + (o.path !== undefined ? 1 : shardSize(o.runs, o.shard));
    const onSimulation = o.onSimulation;
    if (onSimulation) this.runner.onSimulate = (s) => onSimulation(s, this.runIndex);
  }

  /** Corpus scenarios to replay first; none when replaying one failure by its path (replay exactly that). */
  private corpus(): readonly Scenario[] {
    return this.o.path !== undefined ? [] : this.o.corpus.scenarios;
  }

  private progress(phase: 'corpus' | 'runs' | 'shrinking' | 'done', failures: number, shrink?: { step: number; scenario: Scenario }): void {
    if (!this.o.onProgress) return;
    const now = this.o.wallClock?.();
    this.o.onProgress({
      runs: this.executed,
      total: this.total,
      failures,
      phase,
      ...(shrink ? { shrink: { step: shrink.step, faultEvents: shrink.scenario.faults.events.length + shrink.scenario.faults.background.length, actions: shrink.scenario.workload.length } } : {}),
      ...(now !== undefined ? { elapsedMs: now - this.started } : {}),
      ...(now !== undefined && this.deadline !== undefined && phase !== 'done' ? { budgetLeftMs: Math.max(0, this.deadline - now) } : {}),
    });
  }

  /** Whether the budget of the phase in progress ran out. */
  private expired(): boolean {
    return this.deadline !== undefined && this.o.wallClock !== undefined && this.o.wallClock() >= this.deadline;
  }

  /** Records that a budget cut the phase short (once). */
  private cut(phase: 'runs' | 'shrinking', done: string): void {
    const limitMs = phase === 'runs' ? this.o.timeLimitMs : this.o.shrinkTimeLimitMs;
    if (this.cutShort || limitMs === undefined) return;
    this.cutShort = { phase, limitMs, done };
  }

  /** From the first failure on, the shrinking budget applies. */
  private startShrinking(): void {
    const clock = this.o.wallClock;
    this.deadline = clock && this.o.shrinkTimeLimitMs !== undefined ? clock() + this.o.shrinkTimeLimitMs : undefined;
  }

  /** Runs and records one scenario of the corpus or of the generated runs (these count for behaviour coverage: `added` is what one added). */
  private async runOne(s: Scenario, generated = false, deferFailing = false): Promise<ScenarioOutcome & { added: number; facts: ReadonlySet<string> }> {
    // swarm search never asks for a generated run's twin again, unless the run failed (shrinking may)
    // (nor, when aiming, for one aimed: the twin aiming ran is cached, and judging reads it from there)
    const rememberTwin = !generated || this.pool !== undefined || this.twinMade.has(s);
    const outcome = await this.runner.judge(s, { twinWhenFaultsFired: this.o.coverage, interruptible: true, tally: true, observe: generated, rememberTwin });
    if (!rememberTwin && outcome.failure !== undefined && outcome.twin !== undefined) this.runner.twins.keep(s, outcome.twin);
    // a run the budget cut short says nothing: not counted, not judged
    if (outcome.interrupted) return { ...outcome, added: 0, facts: new Set() };
    let added = 0;
    let facts: ReadonlySet<string> = new Set();
    if (generated) {
      facts = runCoverage(outcome.run, this.observer.statesOf(s));
      if (!deferFailing || outcome.failure === undefined) {
        added = this.behaviour.add(facts);
        this.growth.push(this.behaviour.size);
      }
    }
    this.executed++;
    this.lastRun = outcome.run;
    this.stats.add(runStats(outcome.run, outcome.failure === undefined, outcome.latencyMs));
    this.coverage.add(outcome.run, outcome.twin);
    this.addRealTimers(outcome.run);
    if (outcome.failure === undefined && this.o.determinism && (this.executed - 1) % this.o.determinismEvery === 0 && !this.nondeterministic) {
      const report = await this.determinismOf(outcome.run, this.o.properties);
      if (!report.ok) this.nondeterministic = { report, run: outcome.run, runNumber: this.executed };
    }
    return { ...outcome, added, facts };
  }

  /** The determinism self-check of a failing run; false (and recorded) when it does not replay. */
  private async replays(outcome: ScenarioOutcome, runNumber: number): Promise<boolean> {
    if (!this.o.determinism) return true;
    const report = await this.determinismOf(outcome.run, this.o.properties);
    if (report.ok) return true;
    this.nondeterministic = { report, run: outcome.run, runNumber, ...(outcome.failure ? { failed: outcome.failure } : {}) };
    return false;
  }

  private async determinismOf(run: RunRecord, properties: readonly Property[]): Promise<DeterminismReport> {
    this.determinismChecked++;
    return checkDeterminism(run, (s) => this.runner.simulate(s, properties), this.o.hostProbe);
  }

  async run(): Promise<CheckResult> {
    const o = this.o;
    let found: Found | undefined;

    for (const s of this.corpus()) {
      if (this.expired()) {
        this.cut('runs', `${this.corpusReplayed} of ${this.corpus().length} corpus scenarios replayed, no generated run`);
        break;
      }
      const outcome = await this.runOne(s);
      if (outcome.interrupted) {
        this.cut('runs', `${this.corpusReplayed} of ${this.corpus().length} corpus scenarios replayed, no generated run`);
        break;
      }
      this.corpusReplayed++;
      this.progress('corpus', outcome.failure ? 1 : 0);
      if (outcome.failure) {
        if (!(await this.replays(outcome, this.executed))) break;
        found = { scenario: s, outcome, runNumber: this.executed, fromCorpus: true, original: s, guessed: guessedStop(outcome) };
        break;
      }
      if (this.nondeterministic) break;
    }

    let seed = o.seed;
    let path = '';
    let fcShrinks = 0;
    if (!found && !this.nondeterministic && !this.cutShort) {
      const r = await this.generated();
      seed = r.seed;
      path = r.path;
      fcShrinks = r.shrinks;
      found = r.found;
    }

    if (!found) {
      if (this.nondeterministic) {
        this.progress('done', 1);
        return this.nondeterminismFailure(seed ?? 0);
      }
      const unfired = o.requireAllFaultsFired ? this.coverage.unfired() : [];
      this.progress('done', 0);
      if (unfired.length > 0) return this.coverageFailure(seed ?? 0, unfired);
      this.assertConfiguration();
      return this.passed(seed ?? 0);
    }

    if (found.fromCorpus) this.startShrinking();
    const failure = found.outcome.failure!;
    const property = o.properties.find((p) => p.name === failure.property) ?? runGuards.find((p) => p.name === failure.property);
    // the fault-free twin failed: the scenario with no fault is the failing one (shrunk, reported and replayed on its own)
    const faultFree = failure.faultFree === true;
    if (faultFree) {
      const outcome = await this.runner.faultFreeOutcome(found.outcome, property);
      found = { ...found, scenario: outcome.run.scenario, outcome };
    }
    this.progress('shrinking', 1, { step: 0, scenario: found.scenario });
    let minimal = { scenario: found.scenario, run: found.outcome.run };
    let minimizeReductions = 0;
    if (o.shrink.enabled && property && !this.cutShort) {
      const only = [property];
      let step = 0;
      let smallest = found.scenario;
      const stillFails = async (s: Scenario) => {
        if (this.expired()) {
          this.cut('shrinking', 'stopped during delta debugging; the smallest failing scenario so far is reported');
          return undefined;
        }
        const out = await this.runner.judge(s, { properties: only, interruptible: true });
        this.progress('shrinking', 1, { step: ++step, scenario: smallest });
        if (out.interrupted) {
          this.cut('shrinking', 'stopped during delta debugging; the smallest failing scenario so far is reported');
          return undefined;
        }
        if (out.failure?.property !== failure.property) return undefined;
        smallest = s;
        return out.run;
      };
      // a story's times are the user's: keep them (its jitter has shrunk back toward them)
      const keepTimes = o.story ? { earlyActions: false } : {};
      const m = await minimize(found.scenario, found.outcome.run, { maxTests: o.shrink.maxMinimizeTests, ...keepTimes, stillFails });
      minimal = { scenario: m.scenario, run: m.run };
      minimizeReductions = m.reductions;
      // more than three faults, each needed where it is: look for a smaller derived plan on the same workload
      const smaller = await smallerPlan(minimal.scenario, property, this.runner, o);
      if (smaller) {
        const m2 = await minimize(smaller.scenario, smaller.run, { maxTests: o.shrink.maxMinimizeTests, ...keepTimes, stillFails });
        minimal = { scenario: m2.scenario, run: m2.run };
        minimizeReductions += 1 + m2.reductions;
      }
    }
    // an early stop is a prediction: the minimal scenario, run to its end, must fail too (and the
    // found one, when shrinking moved away from a guess: the shrinking budget must not decide)
    const confirmed = property ? await this.runner.confirmShrunkEarlyStop(minimal.run, property, found) : undefined;
    // it did not: either the monitor predicted wrong (the check runs again with no early stops: slow,
    // exact) or the same scenario does not run the same twice (a controller that misbehaves only in
    // its first simulations of the process would otherwise pass: red team N4, stop 41). Tell them apart first.
    let earlyDeterminism: DeterminismReport | undefined;
    if (confirmed === null) {
      earlyDeterminism = o.determinism ? await this.determinismOf(minimal.run, property ? [property] : o.properties) : undefined;
      if (earlyDeterminism === undefined || earlyDeterminism.ok) return new CheckRun(this.o, false).run();
    }
    // the verdict of the minimal scenario (its words and evidence, not those of the original)
    const judged = property ? await this.runner.judgeRun(minimal.run, { properties: [property] }) : found.outcome;
    const judgedFailure = faultFree && judged.failure !== undefined ? faultFreeFailure(judged.failure) : (judged.failure ?? failure);
    const certain = minimal.run.timing.stoppedEarly?.certain === true;
    const finalFailure = confirmed ? { ...judgedFailure, explanation: `${judgedFailure.explanation}\n${certain ? `Confirmed: the early stop was certain (every run with that beginning fails), and the same scenario run again to it fails ${confirmed.property} too` : `Confirmed without the early stop: the same scenario run to its end fails ${confirmed.property} too`} (${confirmed.summary}).` } : judgedFailure;
    const determinism = earlyDeterminism ?? (o.determinism ? await this.determinismOf(minimal.run, property ? [property] : o.properties) : { ok: true, hashes: [minimal.run.hash, minimal.run.hash] as [string, string] });
    this.progress('done', 1);

    const base = {
      ...this.common(seed ?? found.scenario.seed),
      // announced in every report: the generated runs of this seed did not find it
      ...(found.fromCorpus ? { fromCorpus: { entry: found.runNumber, of: this.corpus().length, name: o.corpus.names[found.runNumber - 1] ?? null } } : {}),
    };
    const result: CheckFailed = determinism.ok
      ? {
          ...base,
          ok: false,
          property: finalFailure.property,
          summary: finalFailure.summary,
          explanation: finalFailure.explanation,
          evidence: finalFailure.evidence,
          scenario: minimal.scenario,
          originalScenario: found.original,
          path,
          failedAtRun: found.runNumber,
          shrinks: fcShrinks + minimizeReductions,
          shrunk: o.shrink.enabled && property !== undefined && this.cutShort?.phase !== 'shrinking',
          run: minimal.run,
          determinism,
        }
      : {
          ...base,
          ok: false,
          property: 'determinism',
          summary: `the failing scenario does not replay: its trace differs between two runs (the run had failed "${finalFailure.property}")`,
          explanation: `${determinism.explanation ?? ''}\nThe scenario had failed "${finalFailure.property}": ${finalFailure.summary}. Fix the nondeterminism first: until runs replay, that verdict cannot be trusted or shrunk.`,
          evidence: { failedProperty: finalFailure.property, hashes: determinism.hashes, divergenceIndex: determinism.divergence?.index ?? null },
          scenario: minimal.scenario,
          originalScenario: found.original,
          path,
          failedAtRun: found.runNumber,
          shrinks: fcShrinks + minimizeReductions,
          run: minimal.run,
          determinism,
        };
    // a failure stands whatever a mask that matched nothing meant (it masked nothing here), and a
    // right path may just be absent from the few states a failure early in the check compared:
    // the report names the mask as a possible cause, it does not replace the failure
    const problems = this.configurationProblems();
    if (problems.length > 0) result.warnings = [...(result.warnings ?? []), ...problems.map((m) => `${m} (It masked nothing in this check: if it is misspelled, the difference it was meant to mask may be why this failed.)`)];
    // the callback gets a copy: what it does with it must not change the verdict or the
    // reproduction this returns (red team stop 42, F8: `failure.ok = true` made a failure pass)
    if (!found.fromCorpus && o.corpus.onFailure) await o.corpus.onFailure(Object.freeze({ ...result, scenario: structuredClone(result.scenario), ...(result.originalScenario !== undefined ? { originalScenario: structuredClone(result.originalScenario) } : {}) }));
    return result;
  }

  /** What the check's scenarios are generated from. */
  private scenarioOptions(): ScenarioArbitraryOptions {
    return checkScenarioOptions(this.o);
  }

  /** The generated runs' arbitrary: the scenario arbitrary, or guided search's mix of it and mutants of pooled runs. */
  private scenarioArbitrary(): fc.Arbitrary<Scenario> {
    const options = this.scenarioOptions();
    const base = scenarioArbitrary(options);
    return this.pool ? this.pool.arbitrary(base, this.o.faults, faultGenContext(options), this.o.story !== undefined) : base;
  }

  /**
   * Guided search replaying a failure by its path: the runs up to it are run again first (and
   * not judged for failures), so the pool, hence the replayed scenario, is the one the check had.
   */
  private async rebuildPool(arb: fc.Arbitrary<Scenario>, upTo: number): Promise<void> {
    if (!this.pool || upTo === 0) return;
    // a shard's pool only ever saw the shard's runs
    let i = 0;
    await fc.check(
      fc.asyncProperty(arb, async (s) => {
        if (inShard(i++, this.o.shard)) await this.offer(s);
        return true;
      }),
      { numRuns: upTo, ...(this.o.seed !== undefined ? { seed: this.o.seed } : {}) },
    );
  }

  /** Runs a generated scenario only to feed the pool (its coverage counts; nothing else is recorded). */
  private async offer(s: Scenario): Promise<void> {
    const out = await this.runner.judge(s, { observe: true });
    const facts = runCoverage(out.run, this.observer.statesOf(s));
    this.pool?.offer(out.run, facts, this.behaviour.add(facts), out.failure !== undefined);
  }

  /**
   * The scenario a generated one runs as: with aiming (swarm search), half its fault events aimed at
   * the fault sites of its fault-free twin (see aim.ts); the twin is kept for the properties that
   * judge against it. Memoised per generated value, so fast-check's counterexample maps back.
   */
  private async aimed(s: Scenario): Promise<Scenario> {
    if (this.aimWith.length === 0 || !wantsAim(s, this.aimWith)) return s;
    const known = this.aims.get(s);
    if (known) return known;
    // the fault-free run, with the check's monitors: one whose failure is certain is cut short (a hot
    // loop costs seconds to run to its end) and aims nothing; a whole one is the run's twin
    const twin = await this.runner.simulate(twinScenario(s), this.o.properties, this.runner.earlyStop);
    if (twin.timing.stoppedEarly !== undefined) {
      this.aims.set(s, s);
      return s;
    }
    this.runner.twins.keep(s, twin);
    const out = aimAtSites(s, twin, this.aimWith);
    this.aims.set(s, out);
    this.twinMade.add(out);
    return out;
  }

  /** The fast-check phase: generated scenarios, and fast-check's shrink of the first failure. */
  private async generated(): Promise<{ seed: number; path: string; shrinks: number; found: Found | undefined }> {
    const o = this.o;
    const arb = this.pool || o.path !== undefined ? this.scenarioArbitrary() : onlyInShard(this.scenarioArbitrary(), o.shard);
    if (o.path !== undefined) await this.rebuildPool(arb, Number(o.path.split(':')[0]));
    // Guided search: a failing run joins the coverage and the pool only once its shrinking is over.
    // A shrunk roll picks its parent by the rarest facts; a path replay walks the shrink tree before
    // it runs anything, so it sees the pool the failing run was drawn from, and the check must have
    // shrunk with that same pool (replays of leaked-bucket seeds 4 and 9 ran other scenarios).
    let unpooled: (ScenarioOutcome & { facts: ReadonlySet<string> }) | undefined;
    const pool = (): void => {
      if (!unpooled) return;
      const added = this.behaviour.add(unpooled.facts);
      this.growth.push(this.behaviour.size);
      this.pool?.offer(unpooled.run, unpooled.facts, added, true);
      unpooled = undefined;
    };

    let index = o.path !== undefined ? Number(o.path.split(':')[0]) : 0;
    const shard = o.path !== undefined ? undefined : o.shard;
    let first: Found | undefined;
    let last: { scenario: Scenario; outcome: ScenarioOutcome } | undefined;
    let shrinkSteps = 0;
    let fatal: { error: unknown } | undefined;
    let onlyFailing: Property[] = [];

    // a budget that runs out interrupts fast-check (searching or shrinking), which keeps what it found
    const interrupt = (): never => {
      throw new fc.PreconditionFailure(true);
    };
    const property = fc.asyncProperty(arb, async (s) => {
      if (fatal || this.nondeterministic) return true;
      if (this.expired()) {
        if (first) this.cut('shrinking', `stopped after ${shrinkSteps} shrink steps; the smallest failing scenario so far is reported`);
        else this.cut('runs', `${this.executed} of ${this.total} runs made`);
        interrupt();
      }
      let cutNow = false;
      try {
        if (!first) {
          const i = index++;
          if (!inShard(i, shard)) return true;
          if (i < o.resumeAt) {
            // guided: the skipped runs still shape the pool (but for those that hung: they would again)
            if (this.pool && !o.hungRuns.includes(i)) await this.offer(s);
            return true;
          }
          this.runIndex = i;
          s = await this.aimed(s);
          const outcome = await this.runOne(s, true, true);
          this.runIndex = undefined;
          if (outcome.interrupted) {
            this.cut('runs', `${this.executed} of ${this.total} runs made`);
            cutNow = true;
            return true;
          }
          if (outcome.failure === undefined) this.pool?.offer(outcome.run, outcome.facts, outcome.added, false);
          else unpooled = outcome;
          this.progress('runs', outcome.failure ? 1 : 0);
          if (!outcome.failure) return true;
          // a failure that does not replay cannot be shrunk: report the nondeterminism instead
          if (!(await this.replays(outcome, i + 1))) {
            pool();
            return true;
          }
          first = { scenario: s, outcome, runNumber: i + 1, fromCorpus: false, original: s, guessed: guessedStop(outcome) };
          last = { scenario: s, outcome };
          this.startShrinking();
          const p = o.properties.find((x) => x.name === outcome.failure!.property) ?? runGuards.find((x) => x.name === outcome.failure!.property);
          onlyFailing = p ? [p] : [...o.properties];
          return false;
        }
        // shrinking: a candidate counts only when it fails the same property
        // (a failure of the fault-free twin is shrunk by delta debugging, from the scenario without faults)
        if (!o.shrink.enabled || shrinkSteps >= o.shrink.maxSteps || first.outcome.failure?.faultFree === true) return true;
        shrinkSteps++;
        s = await this.aimed(s);
        const outcome = await this.runner.judge(s, { properties: onlyFailing, interruptible: true });
        this.progress('shrinking', 1, { step: shrinkSteps, scenario: last!.scenario });
        if (outcome.interrupted) {
          this.cut('shrinking', `stopped after ${shrinkSteps} shrink steps; the smallest failing scenario so far is reported`);
          cutNow = true;
          return true;
        }
        if (outcome.failure?.property !== first.outcome.failure!.property) return true;
        last = { scenario: s, outcome };
        return false;
      } catch (error) {
        fatal = { error };
        // cancelled: fast-check must not go on drawing the runs left
        if (o.signal?.aborted) cutNow = true;
        return true;
      } finally {
        if (cutNow) interrupt();
      }
    });
    const details = await fc.check(property, {
      numRuns: o.runs,
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
      ...(o.path !== undefined ? { path: o.path } : {}),
    });
    pool();
    if (fatal) throw fatal.error;
    if (!first || !last) return { seed: details.seed, path: '', shrinks: 0, found: undefined };
    const generatedCounter = details.counterexample?.[0];
    const counter = generatedCounter !== undefined ? (this.aims.get(generatedCounter) ?? generatedCounter) : undefined;
    // the last failing candidate is fast-check's counterexample; re-judge if it is not (defensive)
    let shrunk = last;
    if (counter !== undefined && counter !== last.scenario) shrunk = { scenario: counter, outcome: await this.runner.judge(counter) };
    if (!shrunk.outcome.failure) shrunk = last;
    return {
      seed: details.seed,
      path: details.counterexamplePath ?? '',
      shrinks: details.numShrinks,
      found: { scenario: shrunk.scenario, outcome: shrunk.outcome, runNumber: first.runNumber, fromCorpus: false, original: first.original, guessed: first.guessed },
    };
  }

  /**
   * Configuration problems the properties saw over the runs of a passing check (a mask that
   * matched no path in any run): a usage error, thrown rather than a pass, since a check that
   * compared many states and never met the path has a misspelled mask. A failing check reports
   * them as warnings beside its failure.
   */
  private assertConfiguration(): void {
    const problems = this.configurationProblems();
    if (problems.length > 0) throw new TypeError(problems.join('\n'));
  }

  private configurationProblems(): string[] {
    return this.o.properties.flatMap((p) => (p.problems?.() ?? []).map((m) => `steadystate.properties.${p.name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())}: ${m}`));
  }

  /** Real timers of the judged runs (SPEC §8: their use is reported). */
  private realTimers: (RealTimerUse & { runs: number }) | undefined;

  private addRealTimers(run: RunRecord): void {
    const r = run.realTimers;
    if (r === undefined) return;
    const t = (this.realTimers ??= { runs: 0, setTimeout: 0, setInterval: 0, setImmediate: 0, clearedAtEnd: 0 });
    t.runs++;
    t.setTimeout += r.setTimeout;
    t.setInterval += r.setInterval;
    t.setImmediate += r.setImmediate;
    t.clearedAtEnd += r.clearedAtEnd;
    if (t.firstSite === undefined && r.firstSite !== undefined) t.firstSite = r.firstSite;
  }

  private common(seed: number) {
    const o = this.o;
    return {
      controller: o.controllers[0]!.name,
      runs: this.executed,
      seed,
      properties: o.properties.map((p) => p.name),
      faults: o.faults.map((f) => f.kind),
      coverage: this.coverage.result(),
      stats: this.stats.result(),
      corpusReplayed: this.corpusReplayed,
      determinismChecked: this.determinismChecked,
      ...(o.shard && o.path === undefined ? { shard: { ...o.shard } } : {}),
      simulations: this.runner.simulations,
      plannedRuns: this.total - this.corpus().length,
      ...(resyncWarnings(o).length > 0 ? { warnings: resyncWarnings(o) } : {}),
      ...(o.wallClock ? { elapsedMs: Math.round(o.wallClock() - this.started) } : {}),
      propertyRuns: o.properties.map((p) => {
        const t = this.runner.tally.get(p.name);
        return { name: p.name, judged: t?.judged ?? 0, unjudged: t?.unjudged ?? 0, reason: t?.reason ?? null, ms: Math.round((t?.ms ?? 0) * 10) / 10 };
      }),
      ...(this.runner.learned.summary().length > 0 ? { learnedMasks: this.runner.learned.summary() } : {}),
      ...(this.runner.unjudged.size > 0 ? { couldNotJudge: [...this.runner.unjudged].map(([property, u]) => ({ property, ...u })) } : {}),
      ...(this.realTimers ? { realTimers: { ...this.realTimers } } : {}),
      inputs: this.inputs,
      ...(this.cutShort ? { cutShort: this.cutShort } : {}),
      behaviour: this.behaviourReport(),
    };
  }

  private behaviourReport(): BehaviourCoverageReport {
    const n = this.growth.length;
    const every = Math.max(1, Math.ceil(n / 50));
    const growth: [number, number][] = [];
    for (let i = every - 1; i < n; i += every) growth.push([i + 1, this.growth[i]!]);
    if (n > 0 && growth.at(-1)?.[0] !== n) growth.push([n, this.growth[n - 1]!]);
    return { search: this.o.search, facts: this.behaviour.size, growth, ...(this.pool ? { pool: this.pool.size, mutants: this.pool.mutants } : {}) };
  }

  private passed(seed: number): CheckPassed {
    return { ...this.common(seed), ok: true, property: null, summary: null, explanation: null, scenario: null, path: null };
  }

  private nondeterminismFailure(seed: number): CheckFailed {
    const n = this.nondeterministic!;
    const failed = n.failed;
    return {
      ...this.common(seed),
      ok: false,
      property: 'determinism',
      summary: failed
        ? `the failing scenario does not replay: its trace differs between two runs (the run had failed "${failed.property}")`
        : `scenario ${n.runNumber} passed, but running it again gave a different trace: the reconciler depends on something outside the simulation`,
      explanation: failed
        ? `${n.report.explanation ?? ''}\nThe scenario had failed "${failed.property}": ${failed.summary}. Fix the nondeterminism first: until runs replay, that verdict cannot be trusted or shrunk.`
        : (n.report.explanation ?? 'the two runs of the same scenario differ'),
      evidence: { ...(failed ? { failedProperty: failed.property } : {}), hashes: n.report.hashes, divergenceIndex: n.report.divergence?.index ?? null },
      scenario: n.run.scenario,
      originalScenario: n.run.scenario,
      path: '',
      failedAtRun: n.runNumber,
      shrinks: 0,
      run: n.run,
      determinism: n.report,
    };
  }

  private coverageFailure(seed: number, unfired: string[]): CheckFailed {
    // the last scenario is as good an example as any of a plan in which the kinds stayed silent
    const rows = this.coverage.result().filter((r) => unfired.includes(r.kind));
    const list = rows.map((r) => `${r.kind} (enabled in ${r.enabled} scenario${r.enabled === 1 ? '' : 's'})`).join(', ');
    const example = this.lastRun;
    return {
      ...this.common(seed),
      ok: false,
      property: 'fault-coverage',
      summary: `fault kind${unfired.length === 1 ? '' : 's'} ${unfired.join(', ')} never fired`,
      explanation: `Let: requireAllFaultsFired be set, and the check run ${this.executed} scenarios. Then: ${list} never injected anything, so the check says nothing about ${unfired.length === 1 ? 'it' : 'them'}. Give the workload more to act on (more objects or actions, a longer faultWindowMs, larger maxNth), or leave the kind out of options.faults.`,
      evidence: { unfired, coverage: rows.map((r) => ({ kind: r.kind, enabled: r.enabled, injected: r.injected })) },
      scenario: example?.scenario ?? emptyScenario(this.o),
      originalScenario: example?.scenario ?? emptyScenario(this.o),
      path: '',
      failedAtRun: this.executed,
      shrinks: 0,
      run: example ?? ({} as RunRecord),
      determinism: { ok: true, hashes: [example?.hash ?? '', example?.hash ?? ''] },
    };
  }

}

/**
 * Controllers whose resync cannot come around within the settle phase: with the default 10 h
 * (controller-runtime's SyncPeriod) one lost event fails convergence for a controller that relies
 * on resync, and the verdict alone does not say why. The fix goes with it.
 */
function resyncWarnings(o: ResolvedCheckOptions): string[] {
  const settle = o.scenarioOptions.settleMs ?? 30_000;
  const out: string[] = [];
  for (const c of o.controllers) {
    if (c.process !== undefined) continue;
    const r = c.resyncPeriodMs;
    if (r > 0 && r <= settle) continue;
    const every = r === 0 ? 'never resyncs (resyncPeriodMs: 0)' : `resyncs every ${humanMs(r)}${r === 36_000_000 ? ' (the default, controller-runtime\'s SyncPeriod)' : ''}`;
    out.push(`${c.name} ${every}, ${r === 0 ? 'so' : 'longer than the settle phase (' + humanMs(settle) + '), so'} within a check a missed event is repaired only by a requeue or the next change. If ${c.name} relies on its resync to catch up (level-triggered by resync), set resyncPeriodMs below settleMs, e.g. defineController({ ..., resyncPeriodMs: ${Math.min(10_000, Math.floor(settle / 3))} }).`);
  }
  return out;
}

function humanMs(ms: number): string {
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`;
}

/** The scenarios a check generates from its resolved options. @internal */
export function checkScenarios(o: ResolvedCheckOptions): fc.Arbitrary<Scenario> {
  return scenarioArbitrary(checkScenarioOptions(o));
}

/** What a check's scenarios are generated from. @internal */
export function checkScenarioOptions(o: ResolvedCheckOptions): ScenarioArbitraryOptions {
  const controllers: ControllerRef[] = o.controllers.map((c) => ({ name: c.name, ...(o.replicas > 1 ? { replicas: o.replicas } : {}) }));
  const environment: EnvironmentRef[] = o.environment.map((e) => ({ name: e.actor.name, ...(e.params ? { params: e.params } : {}) }));
  return {
    controllers,
    primaryKinds: o.controllers.map((c) => c.for),
    environment,
    objects: o.objects,
    ...(o.story ? { story: o.story } : {}),
    faults: o.faults,
    swarm: o.swarm,
    maxObjects: o.maxObjects,
    maxActions: o.maxActions,
    maxFaultEvents: o.maxFaultEvents,
    maxNth: o.maxNth,
    actions: o.actions,
    ...(Object.keys(o.scenarioOptions).length > 0 ? { options: o.scenarioOptions } : {}),
  };
}

function emptyScenario(o: ResolvedCheckOptions): Scenario {
  return { seed: 0, controllers: o.controllers.map((c) => ({ name: c.name })), initialObjects: [], workload: [], faults: { events: [], background: [] } };
}

/** What a shard's generated run of another shard is given: never read (the run returns at once). */
const OTHER_SHARD: Scenario = { seed: 0, controllers: [], initialObjects: [], workload: [], faults: { events: [], background: [] } };

/**
 * The scenario arbitrary of a shard: the other shards' runs get {@link OTHER_SHARD} instead of a
 * generated scenario, so `--workers n` does not generate every scenario n times. Every value is
 * the one the whole check draws at that index: fast-check draws each run from its own clone of a
 * generator it jumps once per run (`tossNext`, fast-check 4), whatever earlier runs drew. The
 * i-th call of `generate` is run index i: fast-check generates one value per run, in order, and
 * shrinks (never generates) once a run failed. Swarm search only: guided search's arbitrary keeps
 * state across runs.
 */
function onlyInShard(arb: fc.Arbitrary<Scenario>, shard: ResolvedCheckOptions['shard']): fc.Arbitrary<Scenario> {
  if (!shard || shard.count <= 1) return arb;
  return new ShardArbitrary(arb, shard);
}

class ShardArbitrary extends fc.Arbitrary<Scenario> {
  private next = 0;
  constructor(
    private readonly inner: fc.Arbitrary<Scenario>,
    private readonly shard: NonNullable<ResolvedCheckOptions['shard']>,
  ) {
    super();
  }
  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<Scenario> {
    return inShard(this.next++, this.shard) ? this.inner.generate(mrng, biasFactor) : new fc.Value(OTHER_SHARD, undefined);
  }
  canShrinkWithoutContext(value: unknown): value is Scenario {
    return this.inner.canShrinkWithoutContext(value);
  }
  shrink(value: Scenario, context: unknown): fc.Stream<fc.Value<Scenario>> {
    return this.inner.shrink(value, context);
  }
}
