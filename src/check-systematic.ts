import { defaultFaults, defaultProperties } from './defaults.js';
import { checkSystematic as checkSystematicWith, type SystematicOptions, type SystematicResult } from './harness/systematic.js';
import type { ControllerDefinition } from './runtime/define-controller.js';
import { wallClock } from './wall-clock.js';
import { createHostProbe } from './host-probe.js';

/**
 * Systematic mode: derives fault plans from a fault-free reference run, one strategy per hazard
 * (a crash between any two steps of a reconcile, stale reads, unobserved, unnotified and
 * coalesced states, permuted lists, delayed and duplicated events, downstream and API failures,
 * recreation), pruned as Sieve prunes, and at depth 2 the second faults of every single-fault run
 * that changed the controllers' behaviour; runs them all and judges them. Defaults: every
 * built-in property and fault kind, depth 2.
 * Never throws because a property failed; the result names the failing plan.
 * @param target the controller under test, or a list whose first element is under test
 * @param options see {@link SystematicOptions}
 * @example
 * ```ts
 * const r = await checkSystematic(myController, { objects: { spec: { replicas: 3 } } });
 * if (!r.ok) console.log(r.systematic.failingPlan?.target, r.explanation);
 * ```
 * @public
 */
export function checkSystematic(target: ControllerDefinition | readonly ControllerDefinition[], options: SystematicOptions = {}): Promise<SystematicResult> {
  if (options === null || typeof options !== 'object') return checkSystematicWith(target, options);
  return checkSystematicWith(target, {
    ...options,
    faults: options.faults ?? defaultFaults(),
    properties: options.properties ?? defaultProperties(),
    hostProbe: options.hostProbe ?? createHostProbe(),
    // host yields during long plans: a test runner's timeout, Ctrl-C and `signal` get their turn
    wallClock: options.wallClock ?? wallClock,
  });
}
