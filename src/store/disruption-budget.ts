import { isBuiltin } from './key-order.js';
import { virtualTimestamp, type Json, type JsonObject, type StoredObject } from './object.js';
import { matchesSelector, parseSelector, type LabelSelector } from './selector.js';

/*
 * What the eviction subresource (eviction.ts) and the disruption controller
 * (src/environment/disruption.ts) share about a policy/v1 PodDisruptionBudget: which Pods it
 * selects, which are healthy, and its DisruptionAllowed condition, as Kubernetes 1.32 has them.
 */

/** The kind. @internal */
export const PDB = 'PodDisruptionBudget';

/**
 * How long a Pod an eviction was granted for (`status.disruptedPods`) stays out of the healthy
 * count while it is not seen deleted: the disruption controller's DeletionTimeout (2 min).
 * @internal
 */
export const DELETION_TIMEOUT_MS = 120_000;

/** An eviction is refused while `status.disruptedPods` has more entries than this (MaxDisruptedPodSize). @internal */
export const MAX_DISRUPTED_PODS = 2000;

function isRecord(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Whether `o` is the built-in policy/v1 PodDisruptionBudget (not a custom kind of that name). @internal */
export function isBudget(o: StoredObject): boolean {
  return o.kind === PDB && isBuiltin(o.kind, o.apiVersion);
}

/**
 * Whether the budget selects the Pod: same namespace, and its selector matches the Pod's labels.
 * A budget without a selector selects nothing; an empty selector (`{}`) selects every Pod of its
 * namespace (policy/v1); a malformed one selects nothing, as both kube components treat it.
 * @internal
 */
export function budgetSelects(pdb: StoredObject, pod: StoredObject): boolean {
  if ((pdb.metadata.namespace ?? '') !== (pod.metadata.namespace ?? '')) return false;
  const sel = pdb.spec['selector'];
  if (!isRecord(sel)) return false;
  try {
    return matchesSelector(parseSelector(sel as unknown as LabelSelector), pod.metadata.labels);
  } catch {
    return false;
  }
}

/** The Pod's Ready condition is True (podutil.IsPodReady: the current meaning of healthy). @internal */
export function podIsReady(pod: StoredObject): boolean {
  const c = pod.status['conditions'];
  return Array.isArray(c) && c.some((x) => isRecord(x) && x['type'] === 'Ready' && x['status'] === 'True');
}

/** A status number (0 when absent, as a Go int32 field reads). @internal */
export function statusInt(pdb: StoredObject, field: string): number {
  const v = pdb.status[field];
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/** `status.disruptedPods` as a map of Pod name → RFC 3339 time (malformed entries dropped). @internal */
export function disruptedPodsOf(pdb: StoredObject): Record<string, string> {
  const d = pdb.status['disruptedPods'];
  const out: Record<string, string> = {};
  if (!isRecord(d)) return out;
  for (const [k, v] of Object.entries(d)) if (typeof v === 'string') out[k] = v;
  return out;
}

/**
 * `status.conditions` with DisruptionAllowed set as pdbhelper.UpdateDisruptionAllowedCondition
 * does: True (SufficientPods) while `allowed` > 0, else False (InsufficientPods); the transition
 * time moves only when the status changes (apimeta.SetStatusCondition).
 * @internal
 */
export function withDisruptionAllowed(conditions: unknown, allowed: number, observedGeneration: number, now: number): Json[] {
  const list = Array.isArray(conditions) ? (conditions as Json[]) : [];
  const status = allowed > 0 ? 'True' : 'False';
  const i = list.findIndex((c) => isRecord(c) && c['type'] === 'DisruptionAllowed');
  const prev = i >= 0 ? (list[i] as JsonObject) : undefined;
  const since = prev !== undefined && prev['status'] === status && typeof prev['lastTransitionTime'] === 'string' ? prev['lastTransitionTime'] : virtualTimestamp(now);
  const c: JsonObject = { type: 'DisruptionAllowed', status, observedGeneration, lastTransitionTime: since, reason: allowed > 0 ? 'SufficientPods' : 'InsufficientPods', message: '' };
  return i >= 0 ? list.map((x, j) => (j === i ? c : x)) : [...list, c];
}
