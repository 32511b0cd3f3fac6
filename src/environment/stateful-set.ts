import { fnv1a, hex8, stableStringify } from '../sim/hash.js';
import { keyOf, type Json, type JsonObject, type StoredObject } from '../store/object.js';
import { defineEnvironmentActor, type EnvironmentSyncContext, type EnvironmentSyncResult } from './define-environment-actor.js';
import { isRecord, specNumber } from './_internals/conditions.js';
import { isActive, isPodReady, isTerminal, podFor, templateOf } from './_internals/pods.js';
import { claim, orphanWatch } from './_internals/claim.js';

/** Parameters of {@link statefulSet} (none: pods take podLifecycle's timing). @public */
export type StatefulSetParams = JsonObject;

/**
 * The StatefulSet controller: pods with stable ordinal names `<name>-0 … <name>-(n-1)`,
 * created in order and, with the default `OrderedReady` policy, each only once the previous one
 * is Ready (`Parallel`: all at once); scaled down from the highest ordinal, one at a time; a
 * failed pod is deleted and recreated under the same name. Each `volumeClaimTemplates` entry
 * gives every pod its own claim `<claim>-<name>-<ordinal>` (kept when the pod goes, as
 * Kubernetes does by default); install `pvc-binding` so they bind. Reports `replicas`,
 * `readyReplicas`, `availableReplicas`, `currentReplicas`, `updatedReplicas` and
 * `observedGeneration`. Steps faults act on: `statefulset:create-pod` (delay = a slow rollout).
 *
 * `persistentVolumeClaimRetentionPolicy` is honoured: `whenDeleted: Delete` makes each claim a
 * dependent of the StatefulSet (garbage-collected with it), `whenScaled: Delete` deletes the
 * claims of ordinals scaled away; the default keeps them (Retain).
 *
 * A changed pod template rolls out as Kubernetes' default `RollingUpdate` strategy does: once every
 * pod exists and is Ready, the pod of the highest ordinal (at or above
 * `updateStrategy.rollingUpdate.partition`) still on the old template is deleted and recreated from
 * the new one, one at a time; pods carry `controller-revision-hash`, and status reports
 * `currentRevision`, `updateRevision`, `currentReplicas` and `updatedReplicas`. `OnDelete` leaves
 * running pods alone (new pods get the new template).
 *
 * Orphaned pods named after the set (`<name>-<ordinal>`) that its selector matches are adopted,
 * and pods it no longer matches released, as kube's ClaimPods does (a StatefulSet deleted with
 * `--cascade=orphan` and created again takes its pods back).
 *
 * Known limits: no `minReadySeconds`, no `maxUnavailable` (one pod at a time).
 * @public
 */
export const statefulSet = defineEnvironmentActor<StatefulSetParams>({
  name: 'stateful-set',
  description: 'StatefulSets get ordinal pods in order, each with its own volume claims',
  defaults: {},
  for: 'StatefulSet',
  owns: ['Pod'],
  watches: [orphanWatch('Pod', 'StatefulSet', (pod, sts) => ordinalOf(pod, sts.metadata.name) >= 0)],
  sync,
});

function sync(ctx: EnvironmentSyncContext<StatefulSetParams>): EnvironmentSyncResult {
  const sts = ctx.object;
  if (!sts || sts.metadata.deletionTimestamp !== undefined) return;
  claim(ctx, sts, 'Pod', (pod) => ordinalOf(pod, sts.metadata.name) >= 0);
  const replicas = Math.max(0, specNumber(sts, 'replicas', 1));
  const parallel = sts.spec['podManagementPolicy'] === 'Parallel';
  const ns = sts.metadata.namespace;
  const name = sts.metadata.name;
  const claims = claimTemplates(sts);
  const revision = `${name}-${hex8(fnv1a(stableStringify(templateOf(sts))))}`;
  let after: number | undefined;

  for (let i = 0; i < replicas; i++) {
    const podName = `${name}-${i}`;
    const pod = ctx.get('Pod', keyOf({ namespace: ns, name: podName }));
    if (pod && !pod.metadata.ownerReferences.some((r) => r.uid === sts.metadata.uid)) {
      ctx.record('statefulset:name-taken', { key: ctx.key, pod: podName });
      if (!parallel) break;
      continue;
    }
    if (pod && isTerminal(pod) && pod.metadata.deletionTimestamp === undefined) {
      // recreated under the same name on the next sync (the deletion triggers it)
      ctx.delete('Pod', keyOf(pod.metadata));
      if (!parallel) break;
      continue;
    }
    if (pod && pod.metadata.deletionTimestamp !== undefined) {
      if (!parallel) break;
      continue;
    }
    if (!pod) {
      createMissingClaims(ctx, sts, claims, i);
      const d = ctx.decide('statefulset:create-pod', sts, i);
      if (d.type === 'proceed') {
        const t = templateOf(sts);
        const volumes: Json[] = [...(Array.isArray(t.spec['volumes']) ? t.spec['volumes'] : []), ...claims.map((c) => ({ name: c.name, persistentVolumeClaim: { claimName: `${c.name}-${name}-${i}` } }))];
        const created = ctx.create(
          podFor(sts, { name: podName }, {
            labels: { 'statefulset.kubernetes.io/pod-name': podName, 'apps.kubernetes.io/pod-index': String(i), [REVISION]: revision },
            spec: { hostname: podName, ...(typeof sts.spec['serviceName'] === 'string' ? { subdomain: sts.spec['serviceName'] } : {}), ...(volumes.length > 0 ? { volumes } : {}) },
          }),
        );
        if (created) ctx.record('statefulset:create-pod', { key: ctx.key, pod: podName });
      } else if (d.type === 'delay') {
        after = Math.min(after ?? Infinity, d.ms);
      } else if (d.type === 'block' && d.untilMs !== undefined) {
        after = Math.min(after ?? Infinity, Math.max(0, d.untilMs - ctx.now()));
      }
      if (!parallel) break;
      continue;
    }
    // a Pending pod whose claim went (deleted with an earlier set of the name, or by hand) gets it
    // back, as Kubernetes' StatefulSet controller does (createMissingPersistentVolumeClaims): else
    // the pod waits for a claim nothing makes
    if (isPending(pod)) createMissingClaims(ctx, sts, claims, i);
    if (!parallel && !isPodReady(pod)) break;
  }

  const extra = ctx
    .list('Pod', { namespace: ns, ownedBy: sts })
    .filter((p) => ordinalOf(p, name) >= replicas && p.metadata.deletionTimestamp === undefined)
    .sort((a, b) => ordinalOf(b, name) - ordinalOf(a, name));
  for (const p of parallel ? extra : extra.slice(0, 1)) {
    ctx.delete('Pod', keyOf(p.metadata));
    // whenScaled: Delete removes the claims of the ordinals scaled away
    if (retention(sts).whenScaled === 'Delete') {
      for (const c of claims) {
        const claimKey = keyOf({ namespace: ns, name: `${c.name}-${name}-${ordinalOf(p, name)}` });
        if (ctx.get('PersistentVolumeClaim', claimKey)) ctx.delete('PersistentVolumeClaim', claimKey);
      }
    }
  }

  const live = ctx.list('Pod', { namespace: ns, ownedBy: sts }).filter(isActive);
  if (rollingUpdate(sts) && extra.length === 0) rollOne(ctx, sts, live, replicas, revision);
  const ready = live.filter(isPodReady).length;
  const updated = live.filter((p) => p.metadata.labels[REVISION] === revision).length;
  const previous = typeof sts.status['currentRevision'] === 'string' ? sts.status['currentRevision'] : revision;
  // the rollout is complete once every pod runs the new template: the update revision becomes the current one
  const current = updated === live.length && live.length >= replicas ? revision : previous;
  ctx.patchStatus('StatefulSet', ctx.key, {
    status: { observedGeneration: sts.metadata.generation, replicas: live.length, readyReplicas: ready, availableReplicas: ready, currentReplicas: current === revision ? updated : live.length - updated, updatedReplicas: updated, currentRevision: current, updateRevision: revision },
  });
  return after !== undefined ? { afterMs: after } : undefined;
}

const REVISION = 'controller-revision-hash';

/** Not yet running: Kubernetes' `isPending` (the API server gives a new pod phase Pending). */
function isPending(pod: StoredObject): boolean {
  const phase = pod.status['phase'];
  return phase === undefined || phase === 'Pending';
}

/** Creates the claims of ordinal `i` that do not exist. */
function createMissingClaims(ctx: EnvironmentSyncContext<StatefulSetParams>, sts: StoredObject, claims: readonly { name: string; spec: JsonObject }[], i: number): void {
  const ns = sts.metadata.namespace;
  const name = sts.metadata.name;
  for (const c of claims) {
    const claimName = `${c.name}-${name}-${i}`;
    if (ctx.get('PersistentVolumeClaim', keyOf({ namespace: ns, name: claimName }))) continue;
    // whenDeleted: Delete makes the claims dependents of the StatefulSet (not controlled by it), as Kubernetes does
    const owners = retention(sts).whenDeleted === 'Delete' ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name, uid: sts.metadata.uid, blockOwnerDeletion: true }] } : {};
    ctx.create({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: claimName, ...(ns !== undefined ? { namespace: ns } : {}), labels: templateOf(sts).labels, ...owners }, spec: c.spec });
  }
}

function rollingUpdate(sts: StoredObject): boolean {
  const u = isRecord(sts.spec['updateStrategy']) ? sts.spec['updateStrategy'] : {};
  return u['type'] !== 'OnDelete';
}

function partitionOf(sts: StoredObject): number {
  const u = isRecord(sts.spec['updateStrategy']) ? sts.spec['updateStrategy'] : {};
  const r = isRecord(u['rollingUpdate']) ? u['rollingUpdate'] : {};
  return typeof r['partition'] === 'number' ? Math.max(0, r['partition']) : 0;
}

/**
 * One step of a rolling update: with every pod present, Ready and not terminating, delete the
 * highest-ordinal pod (at or above the partition) on another revision; the next sync recreates it
 * from the current template.
 */
function rollOne(ctx: EnvironmentSyncContext<StatefulSetParams>, sts: StoredObject, live: readonly StoredObject[], replicas: number, revision: string): void {
  const name = sts.metadata.name;
  const pods = new Map<number, StoredObject>();
  for (const p of live) pods.set(ordinalOf(p, name), p);
  for (let i = 0; i < replicas; i++) {
    const p = pods.get(i);
    if (!p || p.metadata.deletionTimestamp !== undefined || !isPodReady(p)) return;
  }
  for (let i = replicas - 1; i >= partitionOf(sts); i--) {
    const p = pods.get(i)!;
    if (p.metadata.labels[REVISION] === revision) continue;
    ctx.delete('Pod', keyOf(p.metadata));
    ctx.record('statefulset:update-pod', { key: ctx.key, pod: p.metadata.name, revision });
    return;
  }
}

/**
 * Keys of the claims StatefulSets retained (the default Retain policies): of ordinals scaled away
 * (`<template>-<set>-<ordinal>` at or above a live set's replicas, `whenScaled: Retain`), and of
 * sets deleted (a claim `created` names, made by this actor, that no live set uses and no owner
 * reference ties to its set, `whenDeleted: Retain`). Which of them exist depends on how far
 * rollouts got before each scale-down or deletion (history), not on where the controller
 * converged; end-state comparisons leave them out.
 * @internal
 */
export function retainedClaimKeys(objects: readonly StoredObject[], created: ReadonlySet<string>): Set<string> {
  // `<namespace>/<template>-<set>-` → the live set's replicas and whether it retains scaled-away claims
  const sets = new Map<string, { replicas: number; retain: boolean }>();
  for (const o of objects) {
    if (o.kind !== 'StatefulSet') continue;
    for (const c of claimTemplates(o)) sets.set(`${o.metadata.namespace ?? ''}/${c.name}-${o.metadata.name}-`, { replicas: Math.max(0, specNumber(o, 'replicas', 1)), retain: retention(o).whenScaled === 'Retain' });
  }
  const out = new Set<string>();
  for (const o of objects) {
    if (o.kind !== 'PersistentVolumeClaim') continue;
    const key = keyOf(o.metadata);
    const m = /^(.*-)(\d+)$/.exec(o.metadata.name);
    const set = m ? sets.get(`${o.metadata.namespace ?? ''}/${m[1]!}`) : undefined;
    if (set) {
      if (set.retain && Number(m![2]) >= set.replicas) out.add(key);
    } else if (created.has(key) && !o.metadata.ownerReferences.some((r) => r.kind === 'StatefulSet')) out.add(key);
  }
  return out;
}

/** `spec.persistentVolumeClaimRetentionPolicy` (Kubernetes 1.32 default: Retain both). */
function retention(sts: StoredObject): { whenDeleted: string; whenScaled: string } {
  const p = isRecord(sts.spec['persistentVolumeClaimRetentionPolicy']) ? sts.spec['persistentVolumeClaimRetentionPolicy'] : {};
  return { whenDeleted: p['whenDeleted'] === 'Delete' ? 'Delete' : 'Retain', whenScaled: p['whenScaled'] === 'Delete' ? 'Delete' : 'Retain' };
}

function claimTemplates(sts: StoredObject): { name: string; spec: JsonObject }[] {
  const raw = sts.spec['volumeClaimTemplates'];
  if (!Array.isArray(raw)) return [];
  const out: { name: string; spec: JsonObject }[] = [];
  for (const c of raw) {
    if (!isRecord(c) || !isRecord(c['metadata']) || typeof c['metadata']['name'] !== 'string') continue;
    out.push({ name: c['metadata']['name'], spec: isRecord(c['spec']) ? (c['spec'] as JsonObject) : {} });
  }
  return out;
}

function ordinalOf(pod: StoredObject, set: string): number {
  const m = pod.metadata.name.startsWith(`${set}-`) ? /^(\d+)$/.exec(pod.metadata.name.slice(set.length + 1)) : null;
  return m ? Number(m[1]) : -1;
}
