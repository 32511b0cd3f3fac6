import { defaultFaults, withDefaultEnvironment } from './defaults.js';
import { ScenarioError, simulate as simulateWith, type SimulateOptions, type SimulationResult } from './harness/simulate.js';
import { scenarioSchema, type Scenario } from './harness/scenario.js';
import { schemaProblem } from './harness/schema-problem.js';
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
export async function simulate(scenario: Scenario, options: SimulateOptions): Promise<SimulationResult> {
  // a scenario is user data (often read from a file): validate it whole, naming the JSON path
  const parsed = scenarioSchema.safeParse(scenario, { reportInput: true });
  if (!parsed.success) throw new ScenarioError(schemaProblem(parsed.error, 'steadystate.simulate', 'scenario'));
  const extra = options.faults ?? [];
  const kinds = new Set(extra.map((f) => f.kind));
  return await simulateWith(scenario, {
    ...options,
    faults: [...extra, ...defaultFaults().filter((f) => !kinds.has(f.kind))],
    environment: withDefaultEnvironment(options.environment ?? []),
    wallClock: options.wallClock ?? wallClock,
  });
}
