import type { CheckOptions, ControllerDefinition, Property, Scenario } from '../../src/index.js';

/**
 * One exhibit of the multi-fault bug set: a realistic controller whose bug needs at least two
 * specific faults in a particular order (each alone is survived), its fixed twin (which passes
 * every default property), the property that catches the bug and a hand-written reproduction.
 * It is the yardstick of the search modes (`bench/search.ts`): how many runs plain swarm, guided
 * swarm and systematic mode need to find each bug.
 */
export interface MultiFaultExhibit {
  /** The bug's name, also its folder under `examples/multi-fault/`. */
  name: string;
  /** One line: the controller and what goes wrong. */
  description: string;
  /** The faults the bug needs, in the order they must happen, in words. */
  needs: readonly string[];
  /** Name of the property that catches the buggy version. */
  caughtBy: string;
  /** The property that catches it, configured for this controller. */
  property: () => Property;
  /** The buggy version; the first controller is the one under test. */
  buggy: readonly ControllerDefinition[];
  /** The fixed twin, in the same order (same names, so a reproduction runs either). */
  correct: readonly ControllerDefinition[];
  /** What both versions are checked with: objects, workload actions, downstream, timing. Never `properties` or `faults`. */
  options: Omit<CheckOptions, 'properties' | 'faults'>;
  /** Properties configured for this controller; they replace the built-in of the same name. */
  properties: readonly Property[];
  /**
   * A hand-written scenario with at least two fault events: the buggy version fails `caughtBy`,
   * the fixed twin passes, and the buggy version passes with any one of the fault events alone.
   */
  reproduction: Scenario;
}
