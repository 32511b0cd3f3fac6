import { keyOf, type JsonObject, type NewObject, type OwnerReference, type StoredObject } from '../../store/object.js';
import { isConditionTrue, isRecord } from './conditions.js';

/** Pods annotated with this run for that many virtual ms, then exit (Job pods). @internal */
export const RUN_MS_ANNOTATION = 'steadystate.dev/run-ms';
/** The exit code of such a pod (default 0). @internal */
export const EXIT_CODE_ANNOTATION = 'steadystate.dev/exit-code';

/** Succeeded or Failed: the pod will not run again. @internal */
export function isTerminal(pod: StoredObject): boolean {
  const phase = pod.status['phase'];
  return phase === 'Succeeded' || phase === 'Failed';
}

/** Not finished and not being deleted: the pods a workload controller counts. @internal */
export function isActive(pod: StoredObject): boolean {
  return !isTerminal(pod) && pod.metadata.deletionTimestamp === undefined;
}

/** The pod's Ready condition is True. @internal */
export function isPodReady(pod: StoredObject): boolean {
  return isConditionTrue(pod, 'Ready');
}

/** Names of the PersistentVolumeClaims a pod mounts. @internal */
export function podClaimNames(pod: StoredObject): string[] {
  const vols = pod.spec['volumes'];
  if (!Array.isArray(vols)) return [];
  const out: string[] = [];
  for (const v of vols) {
    if (!isRecord(v)) continue;
    const c = v['persistentVolumeClaim'];
    if (isRecord(c) && typeof c['claimName'] === 'string') out.push(c['claimName']);
  }
  return out;
}

/** A controlling ownerReference to `owner`. @internal */
export function controllerRef(owner: StoredObject): OwnerReference {
  return { ...(owner.apiVersion !== undefined ? { apiVersion: owner.apiVersion } : {}), kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
}

/** `spec.template` of a workload (`{ metadata?, spec? }`), or an empty one. @internal */
export function templateOf(workload: StoredObject): { labels: Record<string, string>; annotations: Record<string, string>; spec: JsonObject } {
  const t = isRecord(workload.spec['template']) ? (workload.spec['template'] as JsonObject) : {};
  const m = isRecord(t['metadata']) ? (t['metadata'] as JsonObject) : {};
  return {
    labels: stringMap(m['labels']),
    annotations: stringMap(m['annotations']),
    spec: isRecord(t['spec']) ? (t['spec'] as JsonObject) : {},
  };
}

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isRecord(v)) return out;
  for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}

/** A Pod for a workload, from its template, controlled by it. @internal */
export function podFor(owner: StoredObject, name: { name: string } | { generateName: string }, extra: { labels?: Record<string, string>; annotations?: Record<string, string>; spec?: JsonObject } = {}): NewObject {
  const t = templateOf(owner);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...name,
      ...(owner.metadata.namespace !== undefined ? { namespace: owner.metadata.namespace } : {}),
      labels: { ...t.labels, ...(extra.labels ?? {}) },
      annotations: { ...t.annotations, ...(extra.annotations ?? {}) },
      ownerReferences: [controllerRef(owner)],
    },
    spec: { ...t.spec, ...(extra.spec ?? {}) },
  };
}

/** `namespace/name` of an object. @internal */
export function keyOfObject(o: StoredObject): string {
  return keyOf(o.metadata);
}
