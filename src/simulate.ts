import { defaultFaults } from './defaults.js';
import { simulate as simulateWith, type SimulateOptions, type SimulationResult } from './harness/simulate.js';
import type { Scenario } from './harness/scenario.js';

/**
 * Runs one scenario with the built-in fault catalogue (plus any fault modules you pass).
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
  return simulateWith(scenario, { ...options, faults: [...extra, ...defaultFaults().filter((f) => !kinds.has(f.kind))] });
}
