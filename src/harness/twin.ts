import { stableStringify } from '../sim/hash.js';
import { emptyFaultPlan } from './fault-plan.js';
import type { RunRecord } from './property.js';
import type { Scenario } from './scenario.js';

/** The same scenario with no faults: what the reconcilers do when nothing goes wrong. @public */
export function twinScenario(scenario: Scenario): Scenario {
  return { ...scenario, faults: emptyFaultPlan() };
}

/**
 * Runs and remembers fault-free twins. Shrinking mostly changes the fault plan and keeps the
 * workload, so the same twin is asked for again and again; a small cache keyed by the twin
 * scenario's JSON makes those free.
 * @internal
 */
export class TwinRunner {
  private readonly cache = new Map<string, Promise<RunRecord>>();

  constructor(
    private readonly run: (scenario: Scenario) => Promise<RunRecord>,
    private readonly capacity = 32,
  ) {}

  /** The twin run of `scenario` (the scenario itself when it has no faults: it is its own twin). */
  twinOf(scenario: Scenario, run?: RunRecord): Promise<RunRecord> {
    if (run && scenario.faults.events.length === 0 && scenario.faults.background.length === 0) return Promise.resolve(run);
    const twin = twinScenario(scenario);
    const key = stableStringify(twin);
    const hit = this.cache.get(key);
    if (hit) {
      // refresh: least recently used goes first
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const p = this.run(twin);
    this.cache.set(key, p);
    p.catch(() => this.cache.delete(key));
    if (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value!);
    return p;
  }
}
