import { allFaults } from '../../faults/index.js';
import { check, withDefaultCatalogues } from '../check.js';
import { checkSystematic } from '../check-systematic.js';
import type { SystematicOptions } from '../harness/systematic.js';
import { defaultEnvironment, defaultProperties } from '../defaults.js';
import { recordTimelines, type RecordedTimelines } from '../replay.js';
import { loadCorpus, type CorpusSnapshot } from '../report/corpus.js';
import { resolveCheckOptions, type CheckOptions, type CheckProgress, type ResolvedCheckOptions } from '../harness/check-options.js';
import { scenarioMisfit } from '../harness/scenario-fit.js';
import { settleMinimum } from '../harness/settle-minimum.js';
import type { CheckResult } from '../harness/check-result.js';
import type { Property } from '../harness/property.js';
import type { Scenario } from '../harness/scenario.js';
import type { Shard } from '../harness/shard.js';
import type { Story } from '../harness/story.js';
import type { ControllerDefinition } from '../runtime/define-controller.js';
import { loadModule, pickController } from './load-module.js';
import { checkNames, type SearchMode } from './options.js';
import { UsageError } from './usage-error.js';
import { programCheckOptions, programController } from './program-controller.js';
import type { ProgramSpec } from './program-target.js';

/**
 * One check as plain data, so the same description runs in this thread or in a worker thread:
 * which module and export to load, and the check options that the command line can express.
 * @internal
 */
export interface CheckJob {
  /** Absolute module path. */
  module: string;
  /** Export that holds the controller. */
  exportName: string;
  /** A program to host instead of a module's export (`--program`): `module` is its entry. */
  program?: ProgramSpec;
  runs?: number;
  seed: number;
  faults?: string[];
  properties?: string[];
  settleMs?: number;
  /** The story of --story / --manifests, read and validated (plain data, so it crosses to worker threads). */
  story?: Story;
  shard?: Shard;
  /** Regression corpus scenarios to replay first, and their files (named when one fails). */
  corpus?: Scenario[];
  corpusNames?: string[];
  /** Skip generated runs before this 0-based run index (a worker restarted after a hang). */
  resumeAt?: number;
  /** Runs before `resumeAt` whose worker the watchdog terminated (guided search does not re-run them). */
  hungRuns?: number[];
  /** Regression corpus root (e.g. `reports/corpus`): new failures are saved there. */
  corpusRoot?: string;
  /** The corpus files as they were before the module loaded (replayed instead of what is on disk then). */
  corpusSnapshot?: CorpusSnapshot;
  /** `--search`: swarm (the default), guided, or systematic (`checkSystematic`; `runs` caps its plans). */
  search?: SearchMode;
  /** Wall-clock budgets (ms) of the search and of shrinking. */
  timeLimitMs?: number;
  shrinkTimeLimitMs?: number;
}

/** What a job reports while it runs. @internal */
export interface CheckJobHooks {
  onProgress?: (p: CheckProgress) => void;
  /** Before every simulation: a heartbeat for the watchdog, the scenario about to run and, for generated runs, its 0-based run index. */
  onSimulation?: (scenario: Scenario, runIndex: number | undefined) => void;
  /** During a long simulation, about every 50 ms of wall time: the simulation is alive. */
  onHeartbeat?: () => void;
}

/** Names of the built-in fault kinds and properties, for validating flags. @internal */
export function catalogue(): { faults: string[]; properties: string[] } {
  return { faults: allFaults.map((f) => f.kind), properties: defaultProperties().map((p) => p.name) };
}

/** The properties named (all built-ins when none), configured with their defaults. @internal */
export function propertiesNamed(names: readonly string[] | undefined): Property[] {
  const all = defaultProperties();
  if (names === undefined) return [...all];
  checkNames(names, all.map((p) => p.name), '--properties', 'property');
  return names.map((n) => all.find((p) => p.name === n)!);
}

/**
 * Check options a module may export as `checkOptions` (objects, environment, downstream, …):
 * the command line's flags override them.
 * @internal
 */
export function moduleCheckOptions(exports: Record<string, unknown>, file: string): CheckOptions {
  const o = exports['checkOptions'];
  if (o === undefined) return {};
  if (o === null || typeof o !== 'object' || Array.isArray(o)) throw new UsageError(`steadystate check: ${JSON.stringify(file)} exports checkOptions, but it is not an options object (got ${o === null ? 'null' : Array.isArray(o) ? 'an array' : typeof o}). Export the options check() takes, e.g. export const checkOptions = { objects: { spec: { replicas: 3 } } }.`);
  // read once into plain data: a getter must not answer the refusal below one thing and the
  // check another (red team stop 42, G1/G2)
  const snapshot: Record<string, unknown> = { ...(o as Record<string, unknown>) };
  const corpus = snapshot['corpus'];
  if (corpus !== null && typeof corpus === 'object' && !Array.isArray(corpus)) snapshot['corpus'] = { ...(corpus as Record<string, unknown>) };
  const owned = commandOwned(snapshot);
  if (owned.length > 0) {
    throw new UsageError(
      `steadystate check: ${JSON.stringify(file)} exports checkOptions that set ${owned.map((k) => k.name).join(', ')}: the command owns ${owned.length === 1 ? 'it' : 'them'} (a verdict must not depend on what the module under test decides about its own budget, progress, corpus or determinism check). Remove ${owned.length === 1 ? 'it' : 'them'} from checkOptions; ${owned.map((k) => k.instead).join('; ')}.`,
    );
  }
  return snapshot as CheckOptions;
}

/**
 * checkOptions fields the command sets itself, with what to use instead. A module may describe
 * its world (objects, story, environment, downstream, faults, properties, bounds); these decide
 * which runs count and how they are judged, so a module that set them could pick its own verdict
 * (red team, stop 42: a budget clock that cut exactly the failing run, `resumeAt` past it, a
 * corpus callback that rewrote the failure as a pass, the determinism check turned off).
 */
const COMMAND_OWNED: readonly { name: string; instead: string; set(v: unknown): boolean }[] = Object.freeze([
  { name: 'wallClock', instead: 'the command measures time itself', set: (v: unknown) => v !== undefined },
  { name: 'hostProbe', instead: 'the command watches the host itself', set: (v: unknown) => v !== undefined },
  { name: 'timeLimitMs', instead: 'pass --time-limit', set: (v: unknown) => v !== undefined },
  { name: 'shrinkTimeLimitMs', instead: 'pass --shrink-time-limit', set: (v: unknown) => v !== undefined },
  { name: 'resumeAt', instead: 'the command resumes after a hung run itself', set: (v: unknown) => v !== undefined },
  { name: 'hungRuns', instead: 'the command records hung runs itself', set: (v: unknown) => v !== undefined },
  { name: 'path', instead: 'replay a failure with steadystate replay <reproduction.json>', set: (v: unknown) => v !== undefined },
  { name: 'shard', instead: 'pass --shard i/n', set: (v: unknown) => v !== undefined },
  { name: 'onProgress', instead: 'the command prints progress', set: (v: unknown) => v !== undefined },
  { name: 'onSimulation', instead: 'the command watches simulations itself', set: (v: unknown) => v !== undefined },
  { name: 'onHeartbeat', instead: 'the command watches simulations itself', set: (v: unknown) => v !== undefined },
  { name: 'signal', instead: 'the command ends on Ctrl-C, --time-limit or its watchdog', set: (v: unknown) => v !== undefined },
  { name: 'corpus.onFailure', instead: 'the command saves each new failure to <report-dir>/corpus and replays it first next time', set: (v: unknown) => v !== undefined },
  { name: 'determinism: false', instead: 'the determinism check is part of every verdict (sample less often with determinism: { sampleEvery: n })', set: (v: unknown) => v === false },
]);

function commandOwned(o: Record<string, unknown>): (typeof COMMAND_OWNED)[number][] {
  const corpus = o['corpus'];
  const value = (name: string): unknown =>
    name === 'corpus.onFailure' ? (corpus !== null && typeof corpus === 'object' ? (corpus as Record<string, unknown>)['onFailure'] : undefined) : name === 'determinism: false' ? o['determinism'] : o[name];
  return COMMAND_OWNED.filter((k) => k.set(value(k.name)));
}

/** The full check options of a job. @internal */
export function jobOptions(job: CheckJob, base: CheckOptions, hooks: CheckJobHooks): CheckOptions {
  const faults = job.faults === undefined ? base.faults : job.faults.map((k) => allFaults.find((f) => f.kind === k)!);
  if (job.faults) checkNames(job.faults, allFaults.map((f) => f.kind), '--faults', 'fault kind');
  const properties = job.properties === undefined ? base.properties : propertiesNamed(job.properties);
  if (job.settleMs !== undefined) {
    const minimum = settleMinimum(properties ?? defaultProperties(), base.scenarioOptions ?? {});
    if (minimum && job.settleMs < minimum.ms) throw new UsageError(`steadystate check: --settle ${job.settleMs} is too short to judge: the settle phase must be at least ${minimum.ms} virtual ms, because ${minimum.why}. Pass --settle ${minimum.ms} or more, or leave it out for the default (30000).`);
  }
  const userProgress = base.onProgress;
  return {
    ...base,
    seed: job.seed,
    ...(job.runs !== undefined ? { runs: job.runs } : {}),
    ...(faults !== undefined ? { faults } : {}),
    ...(properties !== undefined ? { properties } : {}),
    ...(job.settleMs !== undefined ? { settleMs: job.settleMs } : {}),
    ...(job.story !== undefined ? { story: job.story } : {}),
    ...(job.shard !== undefined ? { shard: job.shard } : {}),
    ...(job.search === 'guided' || job.search === 'swarm' ? { search: job.search } : {}),
    ...(job.resumeAt !== undefined ? { resumeAt: job.resumeAt } : {}),
    ...(job.hungRuns !== undefined ? { hungRuns: job.hungRuns } : {}),
    ...(job.timeLimitMs !== undefined ? { timeLimitMs: job.timeLimitMs } : {}),
    ...(job.shrinkTimeLimitMs !== undefined ? { shrinkTimeLimitMs: job.shrinkTimeLimitMs } : {}),
    corpus: {
      scenarios: [...(base.corpus?.scenarios ?? []), ...(job.corpus ?? [])],
      names: [...(base.corpus?.scenarios ?? []).map((_, i) => base.corpus?.names?.[i] ?? `checkOptions.corpus.scenarios[${i}]`), ...(job.corpusNames ?? [])],
      // the CLI saves a new failure to job.corpusRoot itself, after the checked code ended (commands/check.ts)
      ...(base.corpus?.onFailure ? { onFailure: base.corpus.onFailure } : {}),
    },
    onProgress: (p) => {
      userProgress?.(p);
      hooks.onProgress?.(p);
    },
    ...(hooks.onSimulation ? { onSimulation: hooks.onSimulation } : {}),
    ...(hooks.onHeartbeat ? { onHeartbeat: hooks.onHeartbeat } : {}),
  };
}

/** A controller to check and the module's check options, loaded in the thread that runs the check. @internal */
export interface JobTarget {
  controller: ControllerDefinition;
  base: CheckOptions;
}

/**
 * Loads the job's controller: the module's export, or the program to host.
 * @throws UsageError for a module the check cannot use
 * @internal
 */
export async function loadJobTarget(job: CheckJob): Promise<JobTarget> {
  // a program is never imported here: it runs only inside the runs, one fresh instance each time
  if (job.program !== undefined) return { controller: programController(job.program, process.cwd()), base: programCheckOptions(job.program, '--service') };
  const mod = await loadModule(job.module, process.cwd(), 'check');
  const picked = pickController(mod, job.module, job.exportName, 'check');
  return { controller: picked.controller, base: moduleCheckOptions(mod.exports, job.module) };
}

/**
 * What the command line needs to know of a loaded module to plan its check (the controller's
 * name, its samples, the options its checkOptions set), as plain data: the module is loaded in
 * the worker thread that runs the check, and only these facts cross to the main thread.
 * @internal
 */
export interface TargetFacts {
  name: string;
  for: string;
  samples: number;
  /** The binding that exports the controller, and the module's path as reports name it. */
  exportName: string;
  relativePath: string;
  /** The module exports `checkOptions`. */
  hasCheckOptions: boolean;
  /** What its checkOptions set. */
  objects: boolean;
  story: boolean;
  search: CheckOptions['search'];
  seed: number | undefined;
  runs: number | undefined;
  /** Names of the built-in environment actors (the report marks the scenario's own). */
  builtInEnvironment: string[];
}

/**
 * What to check, as the command line names it: a module (the path as typed, resolved against
 * `cwd`) and the export or controller name of `--controller`, or a program to host; and the
 * `--faults` / `--properties` names, checked before the module loads.
 * @internal
 */
export interface TargetSpec {
  cwd: string;
  module?: string;
  controller?: string;
  program?: ProgramSpec;
  faults?: string[];
  properties?: string[];
}

/**
 * Loads what a spec names, in the thread that will run the check.
 * @throws UsageError for unknown flag names, or a module the check cannot use
 * @internal
 */
export async function openTarget(spec: TargetSpec, onImport?: () => void): Promise<{ target: JobTarget; facts: TargetFacts; job: Pick<CheckJob, 'module' | 'exportName' | 'program'> }> {
  const known = catalogue();
  if (spec.faults) checkNames(spec.faults, known.faults, '--faults', 'fault kind');
  if (spec.properties) checkNames(spec.properties, known.properties, '--properties', 'property');
  if (spec.program !== undefined) {
    const target: JobTarget = { controller: programController(spec.program, spec.cwd), base: programCheckOptions(spec.program, '--service') };
    return { target, facts: targetFacts(target, { exportName: '', relativePath: spec.program.entry, hasCheckOptions: false }), job: { module: spec.program.entry, exportName: '', program: spec.program } };
  }
  const file = spec.module!;
  const mod = await loadModule(file, spec.cwd, 'check', onImport);
  const picked = pickController(mod, file, spec.controller, 'check');
  const target: JobTarget = { controller: picked.controller, base: moduleCheckOptions(mod.exports, file) };
  return { target, facts: targetFacts(target, { exportName: picked.exportName, relativePath: mod.relativePath, hasCheckOptions: mod.exports['checkOptions'] !== undefined }), job: { module: mod.path, exportName: picked.exportName } };
}

/** The facts of a loaded controller and its check options. @internal */
export function targetFacts(target: JobTarget, source: { exportName: string; relativePath: string; hasCheckOptions: boolean }): TargetFacts {
  const { controller, base } = target;
  return { name: controller.name, for: controller.for, samples: controller.sample.length, ...source, objects: base.objects !== undefined, story: base.story !== undefined, search: base.search, seed: base.seed, runs: base.runs, builtInEnvironment: defaultEnvironment().map((a) => a.name) };
}

/**
 * Resolves a job's options the way `check` will, so that options it cannot use are refused
 * before any progress is shown or any run starts; corpus entries that cannot run with these
 * options (saved by a check with other faults, controllers or actors) are left out and listed.
 * @returns the job to run, and the left-out entries with the reason
 * @throws UsageError naming the option or flag
 * @internal
 */
export function validateJob(controller: ControllerDefinition, job: CheckJob, base: CheckOptions): { job: CheckJob; misfits: { index: number; reason: string }[] } {
  const options = withDefaultCatalogues(jobOptions({ ...job, corpus: [] }, base, {}));
  let resolved: ResolvedCheckOptions;
  try {
    resolved = resolveCheckOptions(controller, options);
  } catch (err) {
    if (err instanceof TypeError && err.message.startsWith('steadystate')) throw new UsageError(err.message);
    throw err;
  }
  const catalogue = { controllers: resolved.controllers.map((c) => c.name), faults: resolved.faults.map((f) => f.kind), environment: resolved.environment.map((e) => e.actor.name) };
  const misfits: { index: number; reason: string }[] = [];
  const corpus = (job.corpus ?? []).filter((s, index) => {
    const reason = scenarioMisfit(s, catalogue);
    if (reason !== undefined) misfits.push({ index, reason });
    return reason === undefined;
  });
  const corpusNames = job.corpusNames?.filter((_, index) => !misfits.some((m) => m.index === index));
  return { job: { ...job, corpus, ...(corpusNames !== undefined ? { corpusNames } : {}) }, misfits };
}

/** A job ready to run: the regression corpus it replays first, and the entries left out, with why. @internal */
export interface PlannedJob {
  job: CheckJob;
  /** Files that are not corpus entries of this controller. */
  skipped: { file: string; reason: string }[];
  /** Entries that cannot run with these options (saved by a check with other faults, controllers or actors). */
  misfits: { file: string; reason: string }[];
}

/**
 * Plans a job where its controller is loaded: reads the regression corpus of the controller
 * (under `job.corpusRoot`, when `replayCorpus`) and validates the options as {@link validateJob}.
 * @throws UsageError naming the option or flag
 * @internal
 */
export function planJob(target: JobTarget, job: CheckJob, replayCorpus: boolean): PlannedJob {
  // only this program's entries (a program's name defaults to its file's: a/main.ts and b/main.ts are both "main"), and no program's for a module's controller
  const corpus = replayCorpus && job.corpusRoot !== undefined ? loadCorpus(job.corpusRoot, target.controller.name, { program: job.program?.entry ?? null, ...(job.corpusSnapshot ? { snapshot: job.corpusSnapshot } : {}) }) : { scenarios: [], files: [], skipped: [] };
  const { corpusSnapshot: _read, ...rest } = job;
  const { job: validated, misfits } = validateJob(target.controller, { ...rest, corpus: corpus.scenarios, corpusNames: corpus.files }, target.base);
  return { job: validated, skipped: corpus.skipped, misfits: misfits.map((m) => ({ file: corpus.files[m.index] ?? `entry ${m.index + 1}`, reason: m.reason })) };
}

/** The timelines the HTML report charts for a failure (none for a hang: it never finished). @internal */
export async function failureTimelines(target: JobTarget, result: CheckResult): Promise<RecordedTimelines> {
  if (result.ok || result.property === 'watchdog') return { objects: [], converged: null };
  return recordTimelines(target.controller, result.scenario, target.base, result.property);
}

/** Runs a job's check on an already loaded controller. @internal */
export async function runCheckOn(controller: ControllerDefinition, job: CheckJob, base: CheckOptions, hooks: CheckJobHooks): Promise<CheckResult> {
  const options = jobOptions(job, base, hooks);
  try {
    if (job.search === 'systematic') return await checkSystematic(controller, systematicOptions(options, job));
    return await check(controller, options);
  } catch (err) {
    // check() throws TypeError only for options it cannot use: the user's to fix, no stack
    if (err instanceof TypeError && err.message.startsWith('steadystate')) throw new UsageError(err.message);
    throw err;
  }
}

/**
 * The options of a `--search systematic` job: the check options systematic mode shares (faults, actions,
 * properties, objects, environment, downstream, phases, hooks), `--runs` as its cap on plans.
 * A gate: it stops at the first failing plan. The flags it has no use for (--shard, --story, --time-limit, a corpus) are refused or left out
 * before it starts (see checkCommand).
 */
function systematicOptions(o: CheckOptions, job: CheckJob): SystematicOptions {
  const shared = ['faults', 'properties', 'objects', 'actions', 'maxObjects', 'faultWindowMs', 'settleMs', 'tailMs', 'scenarioOptions', 'replicas', 'environment', 'downstream', 'onProgress', 'determinism', 'shrink', 'hostProbe', 'onSimulation', 'onHeartbeat'] as const satisfies readonly (keyof SystematicOptions & keyof CheckOptions)[];
  const picked: Record<string, unknown> = { stopOnFailure: true, ...(job.runs !== undefined ? { maxRuns: job.runs } : {}) };
  for (const k of shared) if (o[k] !== undefined) picked[k] = o[k];
  return picked as SystematicOptions;
}
