import type { Property } from './property.js';
import { resolveScenarioOptions, type ScenarioOptions } from './scenario.js';

/** The shortest settle phase a verdict means something with, and why. @internal */
export interface SettleMinimum {
  ms: number;
  /** The mechanism, in words, for the message. */
  why: string;
}

/**
 * The shortest settle phase in which even a controller that recovers at once can be judged: a
 * replica that crashed as the faults stopped restarts after `restartDelayMs`, a dropped watch
 * comes back after `rewatchDelayMs`, and then convergence needs `stableFor` checks
 * `checkEveryMs` apart (the configured convergence property's, else its defaults 3 and 1000).
 * A shorter phase fails a correct controller, so it is refused. Undefined without properties:
 * then nothing judges the settled world.
 * @internal
 */
export function settleMinimum(properties: readonly Property[], scenario: ScenarioOptions): SettleMinimum | undefined {
  if (properties.length === 0) return undefined;
  const o = resolveScenarioOptions(scenario);
  const conv = properties.find((p) => p.name === 'convergence')?.options;
  const stableFor = typeof conv?.['stableFor'] === 'number' ? conv['stableFor'] : 3;
  const every = typeof conv?.['checkEveryMs'] === 'number' ? conv['checkEveryMs'] : 1000;
  const recovery = Math.max(o.restartDelayMs, o.rewatchDelayMs);
  const ms = recovery + Math.max(0, stableFor - 1) * every;
  const why =
    `a replica that crashed as the faults stopped restarts after ${o.restartDelayMs} ms (restartDelayMs) and a dropped watch comes back after ${o.rewatchDelayMs} ms (rewatchDelayMs); ` +
    `then convergence needs ${stableFor} consecutive checks ${every} ms apart. A shorter settle phase fails a correct controller`;
  return { ms, why };
}
