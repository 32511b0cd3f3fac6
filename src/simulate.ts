import { defaultFaults, withDefaultEnvironment } from './defaults.js';
import { simulate as simulateWith, type SimulateOptions, type SimulationResult } from './harness/simulate.js';
import type { Scenario } from './harness/scenario.js';
import { wallClock } from './wall-clock.js';

/**
 * Runs one scenario with the built-in fault catalogue and the built-in environment actors
 * (plus any fault modules and actors you pass; yours win on a name clash).
 * @example
 * ```ts
 * const { run } = await simulate(scenario, { controllers: [myController] });
 * console.log(run.hash);
 * ```
 * @public
 */
export function simulate(scenario: Scenario, options: SimulateOptions): Promise<SimulationResult> {
  const extra = options.faults ?? [];
  const kinds = new Set(extra.map((f) => f.kind));
  return simulateWith(scenario, {
    ...options,
    faults: [...extra, ...defaultFaults().filter((f) => !kinds.has(f.kind))],
    environment: withDefaultEnvironment(options.environment ?? []),
    wallClock: options.wallClock ?? wallClock,
  });
}
