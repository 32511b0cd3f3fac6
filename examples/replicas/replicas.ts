/**
 * The object both replicas controllers of the reference experiment (SPEC §9) reconcile: a
 * desired replica count in spec and the actual count in status. Each reconcile moves the
 * actual count one step (±1) toward the desired one, as a real controller that creates or
 * deletes one pod per pass would.
 */
export interface ReplicasSpec {
  replicas: number;
}
export interface ReplicasStatus {
  replicas?: number;
  observedGeneration?: number;
}

export const REPLICAS_KIND = 'ReplicaSet';

/** One virtual tick of the experiment. */
export const TICK_MS = 1000;

/** The next actual count: one step toward desired. */
export function step(actual: number, desired: number): number {
  return actual < desired ? actual + 1 : actual > desired ? actual - 1 : actual;
}
