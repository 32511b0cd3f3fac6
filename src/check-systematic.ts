import { defaultFaults, defaultProperties } from './defaults.js';
import { checkSystematic as checkSystematicWith, type SystematicOptions, type SystematicResult } from './harness/systematic.js';
import type { ControllerDefinition } from './runtime/define-controller.js';
import { createHostProbe } from './host-probe.js';

/**
 * Systematic mode: derives single-fault plans from a fault-free reference run (crash after each
 * write, a stale read before each write, each state a later write cancels left unobserved or
 * unnotified), runs them all and judges them. Defaults: every built-in property and fault kind.
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
  });
}
