import { defaultFaults, defaultProperties } from './defaults.js';
import { check as checkWith } from './harness/check.js';
import type { CheckOptions } from './harness/check-options.js';
import type { CheckResult } from './harness/check-result.js';
import type { ControllerDefinition } from './runtime/define-controller.js';
import type { FaultModule } from './harness/fault.js';
import { createHostProbe } from './host-probe.js';
import { wallClock } from './wall-clock.js';

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
  return checkWith(target, {
    ...options,
    faults: options.faults ?? defaultFaultsFor(options),
    properties: options.properties ?? defaultProperties(),
    hostProbe: options.hostProbe ?? createHostProbe(),
    wallClock: options.wallClock ?? wallClock,
  });
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
