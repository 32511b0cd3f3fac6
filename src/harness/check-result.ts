import type { JsonObject } from '../store/object.js';
import type { TraceEntry } from '../sim/trace.js';
import type { RunRecord } from './property.js';
import type { RecordedInputs } from './recorded-inputs.js';
import type { Scenario } from './scenario.js';
import type { RealTimerUse } from '../host/host-context.js';

/** Per fault kind: how often it fired, and how often that changed what the reconciler did. @public */
export interface FaultCoverage {
  kind: string;
  /** Scenarios in which the kind was enabled. */
  enabled: number;
  /** Injections over all scenarios. */
  injected: number;
  /** Scenarios where an injection changed the controller's writes or reconciles vs the fault-free twin. */
  changedBehaviour: number;
}

/** What a passing check reports (SPEC §6: a pass is informative too). @public */
export interface CheckStats {
  /** Virtual ms from the last fault or user action to convergence, over runs. */
  convergenceLatencyMs: { p50: number; p90: number; p99: number; max: number } | null;
  reconcilesPerObject: number;
  storeWritesPerObject: number;
  /** Highest downstream requests in any 1 s window, any endpoint. */
  peakDownstreamQps: number;
  /** Simulated reconciles over all runs. */
  reconciles: number;
}

/** Result of the determinism self-check. @public */
export interface DeterminismReport {
  ok: boolean;
  /** Trace hashes of the two runs. */
  hashes: [string, string];
  /** First diverging entry when not ok. */
  divergence?: { index: number; first: TraceEntry | null; second: TraceEntry | null };
  /** Human explanation when not ok. */
  explanation?: string;
}

/**
 * Behaviour coverage over the generated runs (issue 16): distinct abstract facts the runs made the
 * system show (per-kind abstract states and transitions, reconcile outcomes, fault sites), and
 * how they grew run after run. @public
 */
export interface BehaviourCoverageReport {
  /** How scenarios were generated: fresh swarm draws, or mostly mutants of coverage-adding runs. */
  search: 'swarm' | 'guided';
  /** Distinct facts over all generated runs. */
  facts: number;
  /** `[runs, facts]` after those runs, sampled (at most about 50 points, the last run included). */
  growth: [number, number][];
  /** Guided search: coverage-adding runs kept in the pool, and runs that were mutants of them. */
  pool?: number;
  mutants?: number;
}

interface CheckCommon {
  /** Controller under test (the first, when several run together). */
  controller: string;
  /** Scenarios run (including corpus replays). */
  runs: number;
  /** fast-check seed of the run. */
  seed: number;
  properties: string[];
  faults: string[];
  coverage: FaultCoverage[];
  stats: CheckStats;
  /** Scenarios replayed from the regression corpus first. */
  corpusReplayed: number;
  /** Scenarios whose determinism was double-checked, and the first failing report if any. */
  determinismChecked: number;
  /** The slice of runs this check ran, when sharded (0-based `index` of `count`). */
  shard?: { index: number; count: number };
  /** Simulations run in all (scenarios, fault-free twins, determinism re-runs and shrinking). */
  simulations?: number;
  /** Behaviour coverage of the generated runs and its growth per run. */
  behaviour?: BehaviourCoverageReport;
  /**
   * Masks the differential properties learned because fault-free runs disagree (benign
   * variations of the twin: other event timings, list orders, an extra resync), per property:
   * paths and objects left out of their comparisons. Absent when none was needed.
   */
  learnedMasks?: { property: string; masks: string[] }[];
  /** Properties that said, in some runs, that they could not judge them (a passing check is silent about nothing), with how many runs and the first reason. */
  couldNotJudge?: { property: string; runs: number; reason: string }[];
  /**
   * Real timers the code under test created, over the judged runs (absent when none): they do
   * not run on virtual time, so what they do is not tested, and every one still pending when its
   * run ended was cleared then.
   */
  realTimers?: RealTimerUse & { runs: number };
  /** What the check ran with that is data (properties with options, fault kinds, tail, downstream): a reproduction records it and a replay compares it. */
  inputs?: RecordedInputs;
  /** Wall-clock ms the check took (with the host clock the public `check` injects). */
  elapsedMs?: number;
  /**
   * Per property: the runs it judged, the runs it had nothing to judge in (its verdict said
   * `judged: false`, e.g. recovery on a run without a revert, status-truthfulness on a run
   * without a claim of the controllers'), the first reason, and the wall ms its judge took. A
   * property judged in no run says nothing about the controller (the pass report notes it); a
   * pass in which no property judged any run is refused (the CLI exits 2, `toPassCheck` throws).
   */
  propertyRuns?: { name: string; judged: number; unjudged: number; reason: string | null; ms: number }[];
  /**
   * What the check noticed about its own setup that may explain a failure: a controller whose
   * informer resync period outlives the settle phase (a lost event then has no second chance).
   */
  warnings?: string[];
  /** Generated runs this check planned (its shard's share of `runs`); corpus replays come on top. */
  plannedRuns?: number;
  /** Set when a wall-clock budget cut the check short (`timeLimitMs`, `shrinkTimeLimitMs`): the phase, the budget, and how far it got. */
  cutShort?: { phase: 'runs' | 'shrinking'; limitMs: number; done: string };
}

/** @public */
export interface CheckPassed extends CheckCommon {
  ok: true;
  property: null;
  summary: null;
  explanation: null;
  scenario: null;
  path: null;
}

/** @public */
export interface CheckFailed extends CheckCommon {
  ok: false;
  /** Name of the property that failed (or `determinism` when the run was not reproducible). */
  property: string;
  summary: string;
  /** "Let: … Then: …" */
  explanation: string;
  evidence: JsonObject;
  /** The shrunk, minimal scenario. */
  scenario: Scenario;
  /** The scenario as first found, before shrinking. */
  originalScenario: Scenario;
  /** fast-check path that replays the failing run (with `seed`). */
  path: string;
  /** 1-based index of the run that first failed (of the corpus replays when `fromCorpus` is set, else of the generated runs). */
  failedAtRun: number;
  /** Set when the failing scenario came from the regression corpus, replayed before the generated runs: which entry, of how many, from which file. */
  fromCorpus?: { entry: number; of: number; name: string | null };
  /** Shrink steps taken. */
  shrinks: number;
  /** The scenario went through shrinking to the end (not turned off, not cut short by a budget): it is minimal. */
  shrunk?: boolean;
  /** The minimal scenario's recorded run (trace, writes, requests), for reports. */
  run: RunRecord;
  determinism: DeterminismReport;
}

/** The outcome of `check`: data, never thrown on a property failure. @public */
export type CheckResult = CheckPassed | CheckFailed;
