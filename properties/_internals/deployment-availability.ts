import { keyOf, type StoredObject } from '../../src/store/object.js';

/**
 * What Kubernetes means by a Deployment's `Available=True` (the deployment controller's
 * `MinimumReplicasAvailable`): the pods its ReplicaSets have available, old and new together,
 * number at least `spec.replicas − maxUnavailable`. A rollout with the old ReplicaSet still
 * serving is available though the new one has nothing yet; `Available` says nothing of the
 * rollout being done (that is `Progressing`). True, or why not; undefined when it controls no
 * ReplicaSet (nothing to count: the caller falls back to its other evidence).
 * @internal
 */
export function deploymentMinimumAvailability(d: StoredObject, replicaSets: readonly StoredObject[]): true | string | undefined {
  if (replicaSets.length === 0) return undefined;
  const replicas = Math.max(0, num(d.spec['replicas'], 1));
  const maxUnavailable = maxUnavailableOf(d, replicas);
  const want = replicas - maxUnavailable;
  let have = 0;
  for (const rs of replicaSets) have += Math.max(0, num(rs.status['availableReplicas'], 0));
  if (have >= want) return true;
  return `Deployment ${keyOf(d.metadata)}: ${have} pod${have === 1 ? '' : 's'} available across its ReplicaSets, fewer than its minimum availability of ${want} (replicas ${replicas} − maxUnavailable ${maxUnavailable})`;
}

/**
 * `MaxUnavailable` of the deployment controller (k8s.io/kubernetes pkg/controller/deployment/util):
 * 0 for a Recreate Deployment or one of 0 replicas; otherwise `rollingUpdate.maxUnavailable`
 * (default 25 %, a percentage rounded down), 1 when it and `maxSurge` (default 25 %, rounded up)
 * both resolve to 0, and at most `replicas`.
 * @internal
 */
export function maxUnavailableOf(d: StoredObject, replicas: number): number {
  const strategy = record(d.spec['strategy']);
  if (strategy['type'] === 'Recreate' || replicas === 0) return 0;
  const ru = record(strategy['rollingUpdate']);
  const surge = scaled(ru['maxSurge'], replicas, true);
  let unavailable = scaled(ru['maxUnavailable'], replicas, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return Math.min(unavailable, replicas);
}

/** An int-or-percent field scaled to `replicas` (`GetScaledValueFromIntOrPercent`); 25 % when absent or malformed. */
function scaled(v: unknown, replicas: number, roundUp: boolean): number {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.max(0, Math.floor(v));
  const m = typeof v === 'string' ? /^(\d+)%$/.exec(v) : null;
  const percent = m ? Number(m[1]) : 25;
  const x = (replicas * percent) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

function record(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function num(v: unknown, dflt: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : dflt;
}
