import type { ControllerDefinition, FaultModule, Property, Scenario } from '../../src/index.js';
import type { CheckOptions } from '../../src/index.js';

export type { CheckOptions };

/**
 * The HTTP client timeout of the zoo's controllers (virtual ms): a careful author bounds every
 * call to an external API, so a hanging API costs a reconcile seconds, not the default 30 s.
 */
export const CLIENT_TIMEOUT_MS = 5_000;

/**
 * Masks for same-end-state: its defaults (`metadata.generation` counts spec writes and
 * `status.observedGeneration` follows it, so a repaired, late or skipped write changes the count,
 * not the state), plus fields others assign, which differ between a faulted run and its twin
 * for reasons no controller controls: a server-assigned id of an external resource recorded in
 * status (after a recreation the resource is a new one), the node and IPs a scheduler gave a pod.
 */
export function endStateMasks(...assignedElsewhere: string[]): string[] {
  return ['metadata.generation', 'status.observedGeneration', ...assignedElsewhere];
}

/** Where a bug of the zoo comes from in SPEC §1. */
export type BugFamily = 'classic bug' | 'anti-pattern';

/**
 * One exhibit of the bug zoo: a realistic small controller in a buggy version and its fixed
 * twin, the property that catches the bug, and how to check them.
 */
export interface BugZooEntry {
  /** The bug's name, also its folder under `examples/bug-zoo/`. */
  name: string;
  family: BugFamily;
  /** One line: the controller and what goes wrong. */
  description: string;
  /** Name of the property that catches the buggy version. */
  caughtBy: string;
  /** The property that catches it, configured for this controller. */
  property: () => Property;
  /** The buggy version; the first controller is the one under test, the others share the world. */
  buggy: readonly ControllerDefinition[];
  /** The fixed twin, in the same order. */
  correct: readonly ControllerDefinition[];
  /**
   * What both versions are checked with: objects to generate, downstream fake services,
   * replicas, timing. Never `properties` or `faults`: the zoo's tests choose those.
   */
  options: Omit<CheckOptions, 'properties' | 'faults'>;
  /** Fault kinds this controller's world needs besides the built-ins (user-written fault modules). */
  extraFaults: readonly FaultModule[];
  /**
   * Properties configured for this controller (a safety invariant, a truthfulness definition);
   * they replace the built-in of the same name when the correct version is checked with all.
   */
  properties: readonly Property[];
  /** A small hand-written scenario in which the buggy version fails and the correct one passes. */
  reproduction: Scenario;
}
