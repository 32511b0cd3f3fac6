import { builtInProperty, defaultFaults, defaultProperties, withDefaultEnvironment } from './defaults.js';
import type { CheckOptions } from './harness/check-options.js';
import { checkDeterminism } from './harness/determinism.js';
import type { EnvironmentUse } from './harness/check-options.js';
import type { Probe, Property, RunRecord } from './harness/property.js';
import type { Scenario } from './harness/scenario.js';
import { ScenarioRunner } from './harness/scenario-runner.js';
import type { SimulateOptions } from './harness/simulate.js';
import { createHostProbe } from './host-probe.js';
import type { JsonObject } from './store/object.js';
import type { ControllerDefinition } from './runtime/define-controller.js';
import type { ReproductionFile } from './report/json.js';
import { createTimelineRecorder, type ObjectTimeline } from './report/timeline-recorder.js';

/**
 * Options of {@link replay}: the options the check ran with (faults, environment, downstream,
 * tail length), so the replay simulates exactly what the check simulated, plus extra probes.
 * @public
 */
export type ReplayOptions = Pick<CheckOptions, 'faults' | 'properties' | 'environment' | 'downstream' | 'tailMs' | 'traceReads'> & {
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
  run: RunRecord;
}

/**
 * Replays a reproduction (or a bare scenario) against a controller: runs its minimal scenario
 * once, compares the trace hash with the recorded one, and judges it with the property that
 * failed. `ok` turns true once the bug is fixed, so a reproduction makes a regression test.
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
    ...(options.probes ? { probes: options.probes } : {}),
  };
  const expectedHash = isFile ? (reproduction as ReproductionFile).traceHash : null;
  const runner = new ScenarioRunner(simulateOptions, property ? [property] : []);
  if (property === undefined) {
    // `determinism`: the reproduction is two runs that differ
    const run = await runner.simulate(scenario);
    const report = await checkDeterminism(run, (s) => runner.simulate(s), createHostProbe());
    return {
      ok: report.ok,
      property: 'determinism',
      failure: report.ok ? null : { summary: 'the scenario still gives different traces on two runs', explanation: report.explanation ?? '', evidence: { hashes: report.hashes } },
      hash: run.hash,
      expectedHash,
      sameTrace: expectedHash === null ? null : run.hash === expectedHash,
      run,
    };
  }
  const outcome = await runner.judge(scenario);
  return {
    ok: outcome.failure === undefined,
    property: property.name,
    failure: outcome.failure ? { summary: outcome.failure.summary, explanation: outcome.failure.explanation, evidence: outcome.failure.evidence } : null,
    hash: outcome.run.hash,
    expectedHash,
    sameTrace: expectedHash === null ? null : outcome.run.hash === expectedHash,
    run: outcome.run,
  };
}

/** The property of that name: from the given list, else the built-in catalogue. `determinism` is not a property: undefined. */
function propertyNamed(name: string, given: readonly Property[] | undefined, options: JsonObject | null): Property | undefined {
  if (name === 'determinism') return undefined;
  const found = given?.find((p) => p.name === name) ?? builtInProperty(name, options);
  if (found) return found;
  const known = [...new Set([...(given ?? []), ...defaultProperties()].map((p) => p.name))];
  throw new TypeError(`steadystate.replay: the reproduction failed the property "${name}", which this check knows no property of that name for (known: ${known.join(', ')}). Pass it in options.properties, as the check that wrote the reproduction did.`);
}

/**
 * Re-runs a scenario with a recorder of desired vs actual per primary object (for the HTML
 * timeline), with the same simulation options as the check, so it is the same run. Returns []
 * if the run throws: reports must still be written.
 * @internal
 */
export async function recordObjectTimelines(target: ControllerDefinition | readonly ControllerDefinition[], scenario: Scenario, options: ReplayOptions = {}): Promise<ObjectTimeline[]> {
  const controllers = Array.isArray(target) ? [...(target as readonly ControllerDefinition[])] : [target as ControllerDefinition];
  const rec = createTimelineRecorder([...new Set(controllers.map((c) => c.for))]);
  try {
    await replay(controllers, { scenario, property: NO_PROPERTY }, { ...options, probes: [...(options.probes ?? []), rec.probe] });
  } catch {
    return [];
  }
  return rec.timelines();
}

/** A property that judges nothing: replays that only record. */
const NO_PROPERTY: Property = { name: 'steadystate:none', description: 'judges nothing', options: {}, needsTwin: false, probes: () => [], judge: () => ({ ok: true }) };
