import { fnv1a, hex8, stableStringify } from '../sim/hash.js';
import type { JsonObject, StoredObject } from '../store/object.js';
import { defineEnvironmentActor, type EnvironmentSyncContext, type EnvironmentSyncResult } from './define-environment-actor.js';
import { conditionsJson, conditionsOf, isRecord, specNumber, statusNumber, withConditions } from './_internals/conditions.js';
import { controllerRef, templateOf } from './_internals/pods.js';
import { replicaSetLoop } from './_internals/replica-set-loop.js';
import { claim, orphanWatch } from './_internals/claim.js';

/** Parameters of {@link deployment} (it has no timing of its own: pods take podLifecycle's). @public */
export type DeploymentParams = JsonObject;

/**
 * The Deployment and ReplicaSet controllers: a Deployment gets a ReplicaSet per pod template
 * (`<name>-<template hash>`, labelled `pod-template-hash`), the ReplicaSet gets pods, and the
 * Deployment reports `replicas`, `updatedReplicas`, `readyReplicas`, `availableReplicas`,
 * `unavailableReplicas`, `observedGeneration` and the `Available` condition (True when at least
 * `replicas − maxUnavailable` pods are available; `maxUnavailable` from
 * `spec.strategy.rollingUpdate`, default 25 % rounded down, 0 for Recreate) and `Progressing`. Install
 * `pod-lifecycle` too, or the pods never run.
 *
 * Rollouts: with RollingUpdate the new ReplicaSet is scaled to full size at once and the old
 * ones to zero when it is fully available (a surge-everything rolling update); with Recreate
 * the old ones go to zero first. Steps faults act on: `replicaset:create-pods` (delay = a slow
 * rollout).
 *
 * Old ReplicaSets are deleted once scaled to zero beyond `spec.revisionHistoryLimit`, whose
 * server default (10, which the API server fills in when the Deployment leaves it out) counts as 0
 * here (an explicit 10 too), and no `deployment.kubernetes.io/revision` annotation is
 * kept, so an end state does not depend on the rollouts that led to it (properties compare end
 * states across runs).
 *
 * Orphans are adopted as kube's ControllerRefManager does: a Deployment takes the ReplicaSets its
 * selector matches that have no controller (one deleted with `--cascade=orphan` and created
 * again takes its ReplicaSets back), a ReplicaSet the Pods; each releases what its selector no
 * longer matches.
 *
 * Known limits: no pausing, no progress deadline.
 * @public
 */
export const deployment = defineEnvironmentActor<DeploymentParams>({
  name: 'deployment',
  description: 'Deployments get ReplicaSets, ReplicaSets get pods, and both report available replicas',
  defaults: {},
  loops: [
    { for: 'Deployment', owns: ['ReplicaSet'], watches: [orphanWatch('ReplicaSet', 'Deployment')], sync: syncDeployment },
    replicaSetLoop<DeploymentParams>(),
  ],
});

function syncDeployment(ctx: EnvironmentSyncContext<DeploymentParams>): EnvironmentSyncResult {
  const d = ctx.object;
  if (!d || d.metadata.deletionTimestamp !== undefined) return;
  claim(ctx, d, 'ReplicaSet');
  const replicas = Math.max(0, specNumber(d, 'replicas', 1));
  const t = templateOf(d);
  const hash = hex8(fnv1a(stableStringify(d.spec['template'] ?? {})));
  const rsName = `${d.metadata.name}-${hash}`;
  const owned = ctx.list('ReplicaSet', { namespace: d.metadata.namespace, ownedBy: d });
  let current: StoredObject | undefined = owned.find((rs) => rs.metadata.name === rsName);
  const old = owned.filter((rs) => rs !== current);
  const recreate = isRecord(d.spec['strategy']) && d.spec['strategy']['type'] === 'Recreate';
  const minReadySeconds = specNumber(d, 'minReadySeconds', 0);

  // old ReplicaSets go to zero at once (Recreate) or when the new one is fully available
  const newReady = current !== undefined && statusNumber(current, 'availableReplicas') >= replicas;
  for (const rs of old) if (specNumber(rs, 'replicas', 1) !== 0 && (recreate || newReady)) ctx.patch('ReplicaSet', keyOfRs(rs), { spec: { replicas: 0 } });

  if (!current) {
    const oldGone = old.every((rs) => statusNumber(rs, 'replicas') === 0);
    if (!recreate || oldGone) {
      const labels = { ...t.labels, 'pod-template-hash': hash };
      const selector = isRecord(d.spec['selector']) && isRecord(d.spec['selector']['matchLabels']) ? (d.spec['selector']['matchLabels'] as JsonObject) : t.labels;
      current = ctx.create({
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: {
          name: rsName,
          ...(d.metadata.namespace !== undefined ? { namespace: d.metadata.namespace } : {}),
          labels,
          ownerReferences: [controllerRef(d)],
        },
        spec: { replicas, minReadySeconds, selector: { matchLabels: { ...selector, 'pod-template-hash': hash } }, template: { metadata: { labels, annotations: t.annotations }, spec: t.spec } },
      });
      if (current) ctx.record('deployment:rollout', { key: ctx.key, replicaSet: rsName });
    }
  } else if (specNumber(current, 'replicas', 1) !== replicas || specNumber(current, 'minReadySeconds', 0) !== minReadySeconds) {
    current = ctx.patch('ReplicaSet', keyOfRs(current), { spec: { replicas, minReadySeconds } }) ?? current;
  }

  // old ReplicaSets that are scaled down and empty go, beyond spec.revisionHistoryLimit; the
  // server's default (10, filled in on every Deployment) counts as 0 here, so an end state does not
  // depend on how many rollouts led to it
  const history = specNumber(d, 'revisionHistoryLimit', SERVER_DEFAULT_HISTORY);
  const limit = history === SERVER_DEFAULT_HISTORY ? 0 : Math.max(0, history);
  const retired = old.filter((rs) => specNumber(rs, 'replicas', 1) === 0 && statusNumber(ctx.get('ReplicaSet', keyOfRs(rs)), 'replicas') === 0);
  retired.sort((a, b) => (a.metadata.creationTimestamp < b.metadata.creationTimestamp ? -1 : 1));
  for (const rs of retired.slice(0, Math.max(0, retired.length - limit))) ctx.delete('ReplicaSet', keyOfRs(rs));
  const all = (current ? [current, ...old] : old).filter((rs) => ctx.get('ReplicaSet', keyOfRs(rs)) !== undefined);
  const sum = (f: string) => all.reduce((n, rs) => n + statusNumber(ctx.get('ReplicaSet', keyOfRs(rs)), f), 0);
  const available = sum('availableReplicas');
  const maxUnavailable = resolveMaxUnavailable(d, replicas);
  const cur = current ? ctx.get('ReplicaSet', keyOfRs(current)) : undefined;
  const complete = cur !== undefined && statusNumber(cur, 'availableReplicas') >= replicas && statusNumber(cur, 'replicas') === replicas && old.every((rs) => statusNumber(ctx.get('ReplicaSet', keyOfRs(rs)), 'replicas') === 0);
  const availableOk = available >= replicas - maxUnavailable;
  ctx.patchStatus('Deployment', ctx.key, {
    status: {
      observedGeneration: d.metadata.generation,
      replicas: sum('replicas'),
      updatedReplicas: statusNumber(cur, 'replicas'),
      readyReplicas: sum('readyReplicas'),
      availableReplicas: available,
      unavailableReplicas: Math.max(0, replicas - available),
      conditions: conditionsJson(
        withConditions(
          conditionsOf(d),
          [
            availableOk
              ? { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }
              : { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
            complete
              ? { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${rsName}" has successfully progressed.` }
              : { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: `ReplicaSet "${rsName}" is progressing.` },
          ],
          ctx.now(),
        ),
      ),
    },
  });
  return undefined;
}

/** kube-apiserver's default of a Deployment's `spec.revisionHistoryLimit`. */
const SERVER_DEFAULT_HISTORY = 10;

function keyOfRs(rs: StoredObject): string {
  return rs.metadata.namespace ? `${rs.metadata.namespace}/${rs.metadata.name}` : rs.metadata.name;
}

/** `spec.strategy.rollingUpdate.maxUnavailable`: an integer or a percentage (rounded down), default 25 %. */
function resolveMaxUnavailable(d: StoredObject, replicas: number): number {
  const s = isRecord(d.spec['strategy']) ? d.spec['strategy'] : {};
  if (s['type'] === 'Recreate' || replicas === 0) return 0;
  const ru = isRecord(s['rollingUpdate']) ? s['rollingUpdate'] : {};
  const v = ru['maxUnavailable'] ?? '25%';
  if (typeof v === 'number') return Math.max(0, Math.floor(v));
  const m = typeof v === 'string' ? /^(\d+)%$/.exec(v) : null;
  return m ? Math.floor((replicas * Number(m[1])) / 100) : 0;
}
