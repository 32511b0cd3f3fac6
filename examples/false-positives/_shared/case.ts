import type { CheckOptions, ControllerDefinition, Property } from '../../../src/index.js';

/**
 * One controller of the false-positive corpus: a realistic, correct controller of a shape the bug
 * zoo does not have, with how to check it. Every property and every default fault kind must stay
 * quiet on it (issue 11): a failure is either a bug in the controller (fix it and say why) or a
 * harness bug (a fault that produces a history no real cluster produces, or an oracle that judges
 * a correct history wrong).
 */
export interface FalsePositiveCase {
  /** Kebab-case, also the file name. */
  name: string;
  /** One line: the domain and what the controller does. */
  description: string;
  /** The controllers (the first is the one under test; the others share the world). */
  controllers: readonly ControllerDefinition[];
  /** How to check it (objects, environment, downstream, timing); never properties, faults, runs or seed. */
  options: Omit<CheckOptions, 'properties' | 'faults' | 'runs' | 'seed'>;
  /** Properties configured for this controller (they replace the built-in of the same name). */
  properties?: readonly Property[];
  /**
   * Built-in properties that do not apply to this controller by its design, by name, each with why
   * (a user leaves them out of `properties` the same way): a promise the product does not make, never
   * a false alarm of ours (those are fixed, or registered in test/helpers/false-positives.ts
   * PENDING_ORACLE_FIXES).
   */
  withoutProperties?: Readonly<Record<string, string>>;
  /**
   * Its buggy twin, where the corpus found a mechanism worth keeping: the same controller with the
   * one mistake a fault (or the API server's validation) must expose, the properties that catch
   * it, and why. The corpus gate checks the twin fails, so a fault made too gentle is noticed.
   */
  buggy?: {
    controllers: readonly ControllerDefinition[];
    caughtBy: readonly string[];
    why: string;
    /**
     * Over the gate's small world (one or two objects, two actions), when the mistake needs a
     * bigger one to show; or shorter phases, when the mistake shows at once and a run of it is
     * slow (a hot loop writes for the whole settle phase).
     */
    world?: { maxObjects?: number; maxActions?: number; faultWindowMs?: number; settleMs?: number };
    /** Another seed than the gate's, when the mistake is rare enough that the gate's seed misses it in its runs. */
    seed?: number;
    /**
     * How the twin test searches: `'systematic'` runs `checkSystematic` (plans derived from
     * fault-free reference runs, no seed) instead of swarm `check`, for a mistake swarm search
     * meets only in a rare workload (a few in a thousand runs, on most seeds not within the
     * test's bound), which a systematic plan reaches at a fixed run. @defaultValue swarm
     */
    search?: 'systematic';
  };
}
