import type { NewObject, ReconcileContext, StoredObject } from '../../../src/index.js';
import { containsJson } from '../shared/same-json.js';

/**
 * A `ReplicaSet` keeps `spec.replicas` Pods running. Shared by the buggy and the correct
 * controller: the kinds, which pods a set owns, what a pod looks like, and the status report.
 */
export const RS_KIND = 'ReplicaSet';
export const POD_KIND = 'Pod';

/** The apps/v1 ReplicaSet fields used here (a real cluster requires the selector and the template). */
// type aliases, not interfaces: a scenario's JSON spec must accept them (an interface has no index signature)
export type ReplicaSetSpec = {
  replicas: number;
  selector: { matchLabels: Record<string, string> };
  template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
};
export interface ReplicaSetStatus {
  replicas?: number;
  observedGeneration?: number;
}
export type ReplicaSet = StoredObject<ReplicaSetSpec, ReplicaSetStatus>;
export type PodSpec = {
  containers: { name: string; image: string }[];
};

/** A pod of the set runs its image in one container. */
function podSpec(image: string): PodSpec {
  return { containers: [{ name: 'app', image }] };
}

/** The spec of the set `name`: `replicas` pods labelled `app: name` running `image`. */
export function replicaSetSpec(name: string, replicas: number, image: string): ReplicaSetSpec {
  const labels = { app: name };
  return { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podSpec(image) } };
}

/** The image the set's pods run (its template's first container's). */
function imageOf(rs: ReplicaSet): string {
  return rs.spec.template.spec.containers[0]?.image ?? '';
}
export type Pod = StoredObject<PodSpec>;

/** Live pods controlled by this set (by uid, so a recreated set never adopts its predecessor's). */
export function ownedPods(rs: ReplicaSet, pods: Pod[]): Pod[] {
  return pods.filter((p) => p.metadata.deletionTimestamp === undefined && p.metadata.ownerReferences.some((r) => r.controller === true && r.uid === rs.metadata.uid));
}

/** The set's pods, by label (from the cache, or from the API server with `live`). */
export async function listPods(ctx: ReconcileContext, rs: ReplicaSet, live: boolean): Promise<Pod[]> {
  const pods = await ctx.client.list<PodSpec>(POD_KIND, { ...(ctx.namespace !== undefined ? { namespace: ctx.namespace } : {}), labelSelector: `app=${rs.metadata.name}`, live });
  return ownedPods(rs, pods as Pod[]);
}

/** A pod of the set, named (`name`) or server-named (`generateName`). */
export function podOf(rs: ReplicaSet, name: { name: string } | { generateName: string }): NewObject<PodSpec> {
  return {
    kind: POD_KIND,
    metadata: {
      ...name,
      ...(rs.metadata.namespace !== undefined ? { namespace: rs.metadata.namespace } : {}),
      labels: { app: rs.metadata.name },
      ownerReferences: [{ kind: RS_KIND, name: rs.metadata.name, uid: rs.metadata.uid, controller: true }],
    },
    spec: podSpec(imageOf(rs)),
  };
}

/** Puts back the template's spec on pods someone edited (or that an image change left behind). */
export async function repairPods(ctx: ReconcileContext, rs: ReplicaSet, pods: Pod[]): Promise<void> {
  // a container's image is the one field of a Pod that may change
  // (by the members the template sets: the API server defaults the rest of a Pod's spec)
  for (const p of pods) if (!containsJson(p.spec, podSpec(imageOf(rs)))) await ctx.client.update({ ...p, spec: podSpec(imageOf(rs)) });
}

export async function deletePod(ctx: ReconcileContext, p: Pod): Promise<void> {
  await ctx.client.delete(POD_KIND, { namespace: p.metadata.namespace, name: p.metadata.name }, { preconditions: { uid: p.metadata.uid } });
}

/** Reports the count in status when it changed. */
export async function reportReplicas(ctx: ReconcileContext, rs: ReplicaSet): Promise<void> {
  if (rs.status.replicas === rs.spec.replicas && rs.status.observedGeneration === rs.metadata.generation) return;
  await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation } });
}
