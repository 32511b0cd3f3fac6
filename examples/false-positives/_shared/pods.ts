import type { StoredObject } from '../../../src/index.js';

/** A Pod's Ready condition is True (the kubelet's report). */
export function podReady(pod: StoredObject): boolean {
  const conditions = (pod.status['conditions'] ?? []) as { type?: string; status?: string }[];
  return pod.metadata.deletionTimestamp === undefined && conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** A Deployment reports Available=True for its current generation. */
export function deploymentAvailable(dep: StoredObject | undefined): boolean {
  if (!dep || dep.status['observedGeneration'] !== dep.metadata.generation) return false;
  const conditions = (dep.status['conditions'] ?? []) as { type?: string; status?: string }[];
  return conditions.some((c) => c.type === 'Available' && c.status === 'True');
}

/** A Job's Complete condition is True. */
export function jobComplete(job: StoredObject | undefined): boolean {
  const conditions = (job?.status['conditions'] ?? []) as { type?: string; status?: string }[];
  return conditions.some((c) => c.type === 'Complete' && c.status === 'True');
}

/** A Job's Failed condition is True. */
export function jobFailed(job: StoredObject | undefined): boolean {
  const conditions = (job?.status['conditions'] ?? []) as { type?: string; status?: string }[];
  return conditions.some((c) => c.type === 'Failed' && c.status === 'True');
}

/** Stable short hash of a string (for names and config hashes). */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}
