import { builtInProperty, defaultFaults, defaultProperties, withDefaultEnvironment } from './defaults.js';
import type { CheckOptions } from './harness/check-options.js';
import { checkDeterminism } from './harness/determinism.js';
import type { EnvironmentUse } from './harness/check-options.js';
import type { Probe, Property, RunRecord } from './harness/property.js';
import { describeInputs, inputDifferences } from './harness/recorded-inputs.js';
import type { Scenario } from './harness/scenario.js';
import { scenarioMisfit } from './harness/scenario-fit.js';
import { ScenarioRunner } from './harness/scenario-runner.js';
import type { SimulateOptions } from './harness/simulate.js';
import { createHostProbe } from './host-probe.js';
import { wallClock } from './wall-clock.js';
import type { JsonObject } from './store/object.js';
import type { ControllerDefinition } from './runtime/define-controller.js';
import { editedFields, type ReproductionFile } from './report/json.js';
import { version } from './report/version.js';
import { sameCodeAs, type ReplayedCode } from './report/code-digest.js';
import type { ControllerSource } from './report/result.js';
import { replayedCodeOf } from './report/controller-source.js';
import { createTimelineRecorder, type ObjectTimeline } from './report/timeline-recorder.js';
import type { ConvergedSeries } from './report/timeline.js';

/**
 * Options of {@link replay}: the options the check ran with (faults, environment, downstream,
 * tail length), so the replay simulates exactly what the check simulated, plus extra probes.
 * @public
 */
export type ReplayOptions = Pick<CheckOptions, 'faults' | 'properties' | 'environment' | 'downstream' | 'tailMs' | 'traceReads' | 'validation' | 'reportFields'> & {
  /** Extra probes (e.g. a timeline recorder); they never change the trace. @defaultValue [] */
  probes?: readonly Probe[];
};

/** What a replay found. @public */
export interface ReplayResult {
  /** True when the property now holds (the bug is fixed, or the controller changed). */
  ok: boolean;
  /** The property judged (the one the reproduction failed). */
  property: string;
  /** The verdict's words when it still fails. */
  failure: { summary: string; explanation: string; evidence: JsonObject } | null;
  /** Trace hash of this run. */
  hash: string;
  /** Trace hash the reproduction recorded (null for a bare scenario). */
  expectedHash: string | null;
  /** Whether the trace is byte-identical to the recorded one (null when nothing was recorded). */
  sameTrace: boolean | null;
  /**
   * How this replay's inputs differ from those the reproduction recorded, one sentence each
   * ("recorded with downstream service dns-provider (https://dns.example); this replay has
   * none"). A replay with any difference never passes: it would not run what the check ran.
   */
  mismatches: string[];
  /**
   * Why this replay proves nothing although every input is the same: runs of the scenario in
   * this process gave different traces (state the code keeps between runs, or a host source),
   * so neither its pass nor its failure says what the code does. Null when its runs agree. A
   * replay with this set never passes.
   */
  nondeterminism: { summary: string; explanation: string } | null;
  /**
   * Whether the code is the code the check ran (the reproduction's `controller.source.codeDigest`
   * against the module now); null when either is unknown. With the same code a trace that
   * differs is never a fix: the replay fails with `nondeterminism` set.
   */
  sameCode: boolean | null;
  run: RunRecord;
}

/**
 * Replays a reproduction (or a bare scenario) against a controller: runs its minimal scenario
 * once, compares the trace hash with the recorded one, and judges it with the property that
 * failed. `ok` turns true once the bug is fixed, so a reproduction makes a regression test.
 *
 * A replay cannot lie: it compares the inputs the reproduction recorded (the judged property's
 * options, the tail, read tracing, the downstream services) with its own, and any difference
 * makes it fail (`mismatches` names each), whatever the controller does. When every input is
 * the same and the trace still differs, only code changed (the fix); the replay then re-runs
 * once to make sure the difference is not nondeterminism. Pass the options the check ran with
 * (a module's `checkOptions`): they hold the code a file cannot (downstream factories, custom
 * properties and actors).
 * @param target - the controller (or controllers) the scenario names
 * @param reproduction - a parsed reproduction file, or a scenario plus the property to judge
 * @param options - the options the check ran with
 * @throws TypeError when the reproduction names a property this version does not know
 * @example
 * ```ts
 * const file = parseReproductionFile(readFileSync('reports/web-convergence-42.json', 'utf8'), 'web-convergence-42.json');
 * const r = await replay(web, file);
 * expect(r.sameTrace).toBe(true);
 * ```
 * @public
 */
export async function replay(
  target: ControllerDefinition | readonly ControllerDefinition[],
  reproduction: ReproductionFile | { scenario: Scenario; property: string | Property },
  options: ReplayOptions = {},
): Promise<ReplayResult> {
  return replayWith(target, reproduction, options, true, replayedCodeOf(target, process.cwd()));
}

/**
 * {@link replay} with the code digest taken by the caller before the module loaded (the CLI):
 * code run at import cannot then change what the digest says.
 * @internal
 */
export async function replayCode(target: ControllerDefinition | readonly ControllerDefinition[], reproduction: ReproductionFile, options: ReplayOptions, code: ReplayedCode): Promise<ReplayResult> {
  return replayWith(target, reproduction, options, true, code);
}

/** @param confirm - confirm a failure an early stop predicted with a run to the end (a verdict); false records the run as the check reported it (timelines) */
async function replayWith(
  target: ControllerDefinition | readonly ControllerDefinition[],
  reproduction: ReproductionFile | { scenario: Scenario; property: string | Property },
  options: ReplayOptions,
  confirm: boolean,
  code: ReplayedCode | null = null,
): Promise<ReplayResult> {
  const controllers = Array.isArray(target) ? [...(target as readonly ControllerDefinition[])] : [target as ControllerDefinition];
  const isFile = 'type' in reproduction && reproduction.type === 'steadystate/reproduction';
  const scenario = reproduction.scenario;
  const named = isFile ? (reproduction as ReproductionFile).property.name : (reproduction as { property: string | Property }).property;
  const property = typeof named === 'string' ? propertyNamed(named, options.properties, isFile ? (reproduction as ReproductionFile).property.options : null) : named;
  const environment: EnvironmentUse[] = (options.environment ?? []).map((e) => ('actor' in e ? e : { actor: e }));
  const simulateOptions: SimulateOptions = {
    controllers,
    faults: options.faults ?? defaultFaults(),
    // a reproduction names its actors: the built-in ones need not be passed
    environment: withDefaultEnvironment(environment.map((e) => e.actor)),
    ...(options.downstream ? { downstream: options.downstream } : {}),
    tailMs: options.tailMs ?? 10_000,
    traceReads: options.traceReads ?? true,
    ...(options.validation ? { validation: options.validation } : {}),
    ...(options.probes ? { probes: options.probes } : {}),
    wallClock,
  };
  const file = isFile ? (reproduction as ReproductionFile) : undefined;
  const expectedHash = file ? file.traceHash : null;
  const mismatches = file?.inputs
    ? inputDifferences(
        file.inputs,
        describeInputs({ properties: property ? [property] : [], faults: simulateOptions.faults ?? [], environment: simulateOptions.environment ?? [], tailMs: simulateOptions.tailMs ?? 10_000, traceReads: simulateOptions.traceReads ?? true, downstream: options.downstream }),
        scenario,
        file.property.name,
        builtInProperty(file.property.name)?.options,
      )
    : [];
  const missing = mismatches.filter((m) => m.includes('this replay has no fault module') || m.includes('this replay has none of that name'));
  if (missing.length > 0) throw new TypeError(`steadystate.replay: the reproduction cannot run here: ${missing.join('; ')}. Pass the check's options (its faults and environment), e.g. replay(controller, file, checkOptions).`);
  const misfit = scenarioMisfit(scenario, { controllers: controllers.map((c) => c.name), faults: (simulateOptions.faults ?? []).map((f) => f.kind), environment: (simulateOptions.environment ?? []).map((a) => a.name) }, 'this replay');
  if (misfit !== undefined) throw new TypeError(`steadystate.replay: the reproduction cannot run here: ${misfit}. Replay it with the controller it was recorded with (a renamed controller: pass the module that exports that name), or pass the options it needs.`);
  const edited = file ? editedFields(file) : [];
  if (edited.length > 0) {
    throw new TypeError(
      `steadystate.replay: the reproduction was edited after steadystate check wrote it: ${edited.join(', ')} ${edited.length === 1 ? 'is' : 'are'} not what the check recorded, so replaying it would not judge the failure the check found (an edit, such as a fault removed from the scenario, can turn that failure into a pass). Replay the file as the check wrote it, or run the check again (seed ${file!.seed}) for a new one; to replay an edited file on purpose, delete its "digests" field.`,
    );
  }
  const runner = new ScenarioRunner(simulateOptions, property ? [property] : []);
  if (property === undefined) {
    // `determinism`: the reproduction is two runs that differ; agreeing now is trusted only after
    // many runs (what made the check's runs differ may build up over runs: a module-level counter)
    const run = await runner.simulate(scenario);
    const report = await checkDeterminism(run, (s) => runner.simulate(s), createHostProbe(), MAX_STABILITY_RUNS);
    return {
      ok: report.ok && mismatches.length === 0,
      property: 'determinism',
      failure: report.ok ? null : { summary: 'the scenario still gives different traces when run again in one process', explanation: report.explanation ?? '', evidence: { hashes: report.hashes } },
      hash: run.hash,
      expectedHash,
      sameTrace: expectedHash === null ? null : run.hash === expectedHash,
      mismatches,
      nondeterminism: null,
      sameCode: null,
      run,
    };
  }
  let outcome = await runner.judge(scenario);
  // a failure predicted by an early stop counts once the run to its end confirms it (as in check)
  if (confirm && outcome.failure && (await runner.confirmEarlyStop(outcome.run, property)) === null) outcome = await runner.judge(scenario, { earlyStop: false });
  const sameTrace = expectedHash === null ? null : outcome.run.hash === expectedHash;
  // a trace that differs with every recorded input the same comes from code, or from what this
  // process has (not yet) run: make sure it is not the host's doing, over as many runs as the
  // check had made before it failed (state kept between runs shows only after some)
  let nondeterminism: ReplayResult['nondeterminism'] = null;
  const recorded = (file?.controller.source as ControllerSource | null | undefined)?.codeDigest;
  const sameCode = sameCodeAs(file?.controller.source as ControllerSource | null | undefined, code);
  if (sameTrace === false && mismatches.length === 0 && outcome.failure === undefined) {
    const report = await checkDeterminism(outcome.run, (s) => runner.simulate(s), createHostProbe(), stabilityRuns(file));
    if (!report.ok) nondeterminism = { summary: `the scenario gives different traces in this process (${report.hashes.join(', ')}), so this replay's pass proves nothing: the controller depends on something outside the simulation`, explanation: report.explanation ?? '' };
    else if (sameCode === true) {
      // only a code change may turn a recorded failure into a pass: with the same code, the run
      // differs because the controller noticed the replay (argv, thread, environment; red team H5)
      nondeterminism = recorded?.changedDuringCheck
        ? {
            summary: 'the code under test changed its own files while the check ran, so no replay can tell a fix from code that behaves differently when replayed, and this pass proves nothing',
            explanation: 'A module that edits its own source (or what it imports) during a check has no code to compare with. Stop it from writing its files, then run steadystate check again: its verdict on fresh runs is the one to trust.',
          }
        : {
            summary: `the code is unchanged since the check (the same digest over its ${recorded!.files} file${recorded!.files === 1 ? '' : 's'} and the versions of the packages it imports), yet this run differs from the one the check recorded, so this pass proves nothing: the controller behaves differently when it is replayed`,
            explanation: [
              'A replay reports a fix only when the code changed. With the same code, a different run means the controller depends on something outside the simulation that differs between the check and the replay: how the process was started (process.argv, the main thread or a worker, environment variables such as VITEST) or state it keeps or reads at run time (a file, a counter of runs).',
              'Make the reconcile depend only on what the simulation gives it. If you did change something this digest does not cover (a file read at run time, a module imported through a computed path), run steadystate check again: its verdict on fresh runs is the one to trust.',
            ].join('\n'),
          };
    }
  }
  // the same run judged again gives the same verdict: a pass on the identical trace means the
  // judging changed, and with the same code, or for a built-in property of this very steadystate
  // version (its judge is ours, whatever the module changed), only tampering changes it: a built-in
  // the judges use replaced by the code under test (red team N12, stop 41)
  if (sameTrace === true && outcome.failure === undefined && mismatches.length === 0 && file && (sameCode === true || (builtInProperty(file.property.name) !== undefined && file.steadystate === version))) {
    nondeterminism = {
      summary: `the trace is identical to the one the check recorded, yet ${property.name} now holds of it, so this pass proves nothing: the same run judged by the same code cannot change its verdict`,
      explanation:
        'A replay reports a fix when the run changes. Here the run is the one that failed, and only its judging changed: something the property computes with was replaced (a built-in such as Array.prototype.push patched by the code under test, at import or while it runs). Remove that patch and run the replay again.',
    };
  }
  return {
    ok: outcome.failure === undefined && mismatches.length === 0 && nondeterminism === null,
    property: property.name,
    failure: outcome.failure ? { summary: outcome.failure.summary, explanation: outcome.failure.explanation, evidence: outcome.failure.evidence } : null,
    hash: outcome.run.hash,
    expectedHash,
    sameTrace,
    mismatches,
    nondeterminism,
    sameCode,
    run: outcome.run,
  };
}

/**
 * How many runs of the scenario a replay compares before it trusts a pass: as many as the check
 * had made when it failed (the runs before, the shrinking steps, the failing run), at least 2 and
 * at most {@link MAX_STABILITY_RUNS}.
 */
function stabilityRuns(file: ReproductionFile | undefined): number {
  if (file === undefined) return 2;
  const made = Number(file.failedAtRun) + Number(file.shrinks) + 1;
  return Number.isFinite(made) ? Math.min(MAX_STABILITY_RUNS, Math.max(2, made)) : MAX_STABILITY_RUNS;
}

/** A replay's runs of one minimal scenario take milliseconds each; 20 stay well under a second or two. */
const MAX_STABILITY_RUNS = 20;

/** The property of that name: from the given list, else the built-in catalogue. `determinism` is not a property: undefined. */
function propertyNamed(name: string, given: readonly Property[] | undefined, options: JsonObject | null): Property | undefined {
  if (name === 'determinism') return undefined;
  const found = given?.find((p) => p.name === name) ?? builtInProperty(name, options);
  if (found) return found;
  const known = [...new Set([...(given ?? []), ...defaultProperties()].map((p) => p.name))];
  throw new TypeError(`steadystate.replay: the reproduction failed the property "${name}", which this check knows no property of that name for (known: ${known.join(', ')}). Pass it in options.properties, as the check that wrote the reproduction did.`);
}

/** What the report's timeline charts, recorded on a replay of the minimal scenario. @internal */
export interface RecordedTimelines {
  objects: ObjectTimeline[];
  converged: ConvergedSeries | null;
}

/**
 * Re-runs a scenario with recorders (for the HTML timeline): desired vs actual per primary
 * object (the `reportFields`, or what the recorder finds) and what the convergence predicate
 * says after every write. The same simulation options as the check make it the same run, judged
 * by the property that failed (`property`), whose monitor stops it where the check's run
 * stopped. Records nothing if the run throws: reports must still be written.
 * @internal
 */
export async function recordTimelines(target: ControllerDefinition | readonly ControllerDefinition[], scenario: Scenario, options: ReplayOptions = {}, property?: string): Promise<RecordedTimelines> {
  const controllers = Array.isArray(target) ? [...(target as readonly ControllerDefinition[])] : [target as ControllerDefinition];
  const kinds = [...new Set(controllers.map((c) => c.for))];
  const rec = createTimelineRecorder(kinds, options.reportFields);
  const judged = property === undefined || property === 'determinism' ? NO_PROPERTY : (options.properties?.find((p) => p.name === property) ?? builtInProperty(property) ?? NO_PROPERTY);
  const convergence = options.properties?.find((p) => p.name === 'convergence') ?? builtInProperty('convergence');
  const predicate = convergence?.probes({ controllers: scenario.controllers.map((c) => c.name), primaryKinds: kinds }).find((p) => p.name === 'convergence');
  const converged: ConvergedSeries = { t: [], ok: [], detail: [] };
  const probes: Probe[] = [rec.probe];
  if (predicate) {
    probes.push({
      name: 'steadystate:converged',
      everyMs: 'write',
      phases: ['faults', 'settle', 'tail'],
      fn: (view) => {
        let r: boolean | string;
        try {
          const v = predicate.fn(view);
          // a structured result (the default convergence probe): its verdict and words
          r = typeof v === 'object' ? (v.ok ? true : (v.detail ?? false)) : v;
        } catch (err) {
          r = `the predicate threw: ${err instanceof Error ? err.message : String(err)}`;
        }
        const ok = r === true ? 1 : 0;
        const t = view.now();
        const n = converged.t.length;
        if (n > 0 && converged.ok[n - 1] === ok) return true;
        if (n > 0 && converged.t[n - 1] === t) {
          converged.ok[n - 1] = ok;
          converged.detail[n - 1] = typeof r === 'string' ? r : null;
        } else if (n < 2000) {
          converged.t.push(t);
          converged.ok.push(ok);
          converged.detail.push(typeof r === 'string' ? r : null);
        }
        return true;
      },
    });
  }
  try {
    // the run the check reported, once: its recorders must not see a confirming second run
    await replayWith(controllers, { scenario, property: judged }, { ...options, probes: [...(options.probes ?? []), ...probes] }, false);
  } catch {
    return { objects: [], converged: null };
  }
  return { objects: rec.timelines(), converged: predicate ? converged : null };
}

/** A property that judges nothing: replays that only record. */
const NO_PROPERTY: Property = { name: 'steadystate:none', description: 'judges nothing', options: {}, needsTwin: false, probes: () => [], judge: () => ({ ok: true }) };
