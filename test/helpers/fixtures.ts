import { simulate } from '../../src/harness/simulate.js';
import type { ControllerDefinition } from '../../src/runtime/define-controller.js';
import type { Scenario } from '../../src/harness/scenario.js';
import type { SimulateOptions } from '../../src/harness/simulate.js';
import type { TraceEntry } from '../../src/sim/trace.js';

/** A scenario with sensible empty defaults; override what the test needs. */
export function scenario(partial: Partial<Scenario> & { controllers: Scenario['controllers'] }): Scenario {
  return {
    seed: 1,
    initialObjects: [],
    workload: [],
    faults: { events: [], background: [] },
    options: { faultWindowMs: 10_000, settleMs: 10_000 },
    ...partial,
  };
}

/** Runs a scenario with the given controllers (no built-in faults unless passed). */
export async function run(s: Scenario, controllers: ControllerDefinition[], extra: Partial<SimulateOptions> = {}) {
  return simulate(s, { controllers, tailMs: 0, ...extra });
}

/** Trace entries of one type. */
export function entries(trace: readonly TraceEntry[], type: TraceEntry['type']): TraceEntry[] {
  return trace.filter((e) => e.type === type);
}

/** Times of reconcile starts, optionally for one key. */
export function reconcileStarts(trace: readonly TraceEntry[], key?: string): number[] {
  return trace.filter((e) => e.type === 'reconcile:start' && (key === undefined || e['key'] === key)).map((e) => e.t);
}
