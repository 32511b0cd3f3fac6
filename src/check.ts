import { defaultFaults, defaultProperties } from './defaults.js';
import { check as checkWith } from './harness/check.js';
import type { CheckOptions } from './harness/check-options.js';
import type { CheckResult } from './harness/check-result.js';
import type { ControllerDefinition } from './runtime/define-controller.js';
import type { FaultModule } from './harness/fault.js';
import { createHostProbe } from './host-probe.js';
import type { Story } from './harness/story.js';
import { loadManifests, loadStory } from './story/load-story.js';
import { wallClock } from './wall-clock.js';
import { heldText, passSummary } from './report/pass-summary.js';

/**
 * Checks a controller (or several sharing the world) under generated workloads and injected
 * faults, judging every run with properties, and returns the result as data: on failure, the
 * failing property, its "Let: … Then: …" explanation and a shrunk, replayable scenario
 * (with the fast-check `seed` and `path`). Never throws because a property failed; throws a
 * `TypeError` naming the option when the options are unusable.
 *
 * Defaults: every built-in property, every built-in fault kind with swarm testing, 100 runs,
 * objects made from the controller's `sample` specs.
 * @param target the controller under test, or a list whose first element is under test and the others share the world
 * @param options see {@link CheckOptions}
 * @example
 * ```ts
 * const result = await check(myController, {
 *   objects: { spec: fc.record({ replicas: fc.integer({ min: 1, max: 5 }) }) },
 *   runs: 200,
 * });
 * expect(result.ok).toBe(true);
 * ```
 * @public
 */
export function check(target: ControllerDefinition | readonly ControllerDefinition[], options: CheckOptions = {}): Promise<CheckResult> {
  // let the harness name a non-object in its own words
  if (options === null || typeof options !== 'object') return checkWith(target, options);
  return checkWith(target, { ...withDefaultCatalogues(options), hostProbe: options.hostProbe ?? createHostProbe(), wallClock: options.wallClock ?? wallClock }).then((result) => {
    if (options.verbose) printVerbose(result, options.verbose, options.log ?? ((line) => console.log(line)));
    return result;
  });
}

/** What `verbose` prints: the CLI's pass summary; on a failure, the coverage of the runs before it. */
function printVerbose(result: CheckResult, level: 1 | 2, log: (line: string) => void): void {
  if (result.ok) {
    log(`steadystate: ${result.controller} passes: ${result.runs} runs, seed ${result.seed}; ${heldText(result)}`);
    for (const line of passSummary(result, level)) log(`  ${line}`);
    return;
  }
  log(`steadystate: ${result.controller} fails ${result.property} (seed ${result.seed}): ${result.summary}`);
  for (const c of result.coverage) log(`  fault ${c.kind}: fired ${c.injected}× in ${c.enabled} runs where enabled (runs before the failure)`);
}

/**
 * The options with the faults and properties `check` uses when they are left out, and a story
 * file or manifests read into the story as data. @internal
 */
export function withDefaultCatalogues(options: CheckOptions): CheckOptions {
  const story = storyOf(options);
  const { story: _file, manifests: _globs, ...rest } = options;
  return { ...rest, ...(story !== undefined ? { story } : {}), faults: options.faults ?? defaultFaultsFor(options), properties: options.properties ?? defaultProperties() };
}

/**
 * The story as data: a story file read (with the manifests it names), and `manifests` read into
 * initial objects (before the story's own). Throws StoryFileError (a TypeError) naming the file,
 * the document or step, and the line.
 */
function storyOf(options: CheckOptions): Story | undefined {
  const base = typeof options.story === 'string' ? loadStory(options.story) : options.story;
  if (options.manifests === undefined) return base;
  if (!Array.isArray(options.manifests) || !options.manifests.every((m) => typeof m === 'string' && m !== '')) throw new TypeError(`steadystate.check: options.manifests must be a list of files or globs, e.g. ['config/samples/*.yaml'], got ${JSON.stringify(options.manifests)}.`);
  const objects = loadManifests(options.manifests);
  if (base !== undefined && (base === null || typeof base !== 'object')) return base;
  return { ...(base ?? {}), objects: [...objects, ...(base?.objects ?? [])] };
}

/**
 * The default catalogue, less the faults that act on environment actors when the check runs
 * none: they could never fire, and they would take a share of the swarm's event budget.
 */
function defaultFaultsFor(options: CheckOptions): readonly FaultModule[] {
  const all = defaultFaults();
  if ((options.environment ?? []).length > 0) return all;
  return all.filter((f) => !f.kind.startsWith('environment-'));
}
