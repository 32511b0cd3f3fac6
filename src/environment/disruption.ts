import { budgetSelects, DELETION_TIMEOUT_MS, disruptedPodsOf, isBudget, PDB, podIsReady, withDisruptionAllowed } from '../store/disruption-budget.js';
import { fromVirtualTimestamp, keyOf, type Json, type JsonObject, type StoredObject } from '../store/object.js';
import { defineEnvironmentActor, type EnvironmentReader, type EnvironmentSyncContext } from './define-environment-actor.js';
import { isRecord } from './_internals/conditions.js';

/** Parameters of {@link disruption}: none. @public */
export type DisruptionParams = Record<string, never>;

type Ctx = EnvironmentSyncContext<DisruptionParams>;

/** Every budget of the object's namespace: a Pod or a workload changed, so each may count differently. */
function budgetsBeside(o: StoredObject, read: EnvironmentReader): string[] {
  return read.list(PDB, { namespace: o.metadata.namespace }).map((b) => keyOf(b.metadata));
}

/**
 * kube-controller-manager's disruption controller (pkg/controller/disruption, 1.32): keeps each
 * policy/v1 PodDisruptionBudget's status up to date from the Pods its selector selects.
 * - `expectedPods` and `desiredHealthy`: an integer `minAvailable` is `desiredHealthy`, the
 *   selected Pods are `expectedPods`; a percentage `minAvailable` or any `maxUnavailable` counts
 *   the scale of the Pods' controllers (a Deployment through its ReplicaSet, a ReplicaSet, a
 *   StatefulSet, a ReplicationController: `spec.replicas`), rounding the percentage up, and
 *   `desiredHealthy = expected - maxUnavailable` (not below 0). Pods without a controller are left
 *   out of that count (kube's UnmanagedPods warning); a controller it cannot find, or a malformed
 *   percentage, fails the sync: `disruptionsAllowed` 0 and DisruptionAllowed=False (SyncFailed),
 *   the rest of the status kept.
 * - `currentHealthy`: selected Pods that are Ready, not terminating and not in `disruptedPods`.
 * - `disruptedPods`: the evictions' grants, kept while the Pod is there and not terminating, for
 *   at most the DeletionTimeout (2 min; the budget is looked at again when one expires).
 * - `disruptionsAllowed = currentHealthy - desiredHealthy` (0 when negative or no Pods are
 *   expected), `observedGeneration`, and the DisruptionAllowed condition.
 * The eviction subresource (the store's `evict`) reads this status and takes disruptions from it.
 *
 * Known limits: it counts at the instant a Pod or budget changes (the real controller's informer
 * and queue add a little delay); no scale subresource of custom controllers (their Pods fail the
 * sync as a controller not found), no events.
 * @public
 */
export const disruption = defineEnvironmentActor<DisruptionParams>({
  name: 'disruption',
  description: 'PodDisruptionBudget status (currentHealthy, desiredHealthy, expectedPods, disruptionsAllowed, disruptedPods) from the Pods each selects',
  defaults: {},
  for: PDB,
  watches: ['Pod', 'ReplicaSet', 'Deployment', 'StatefulSet', 'ReplicationController'].map((kind) => ({ kind, map: budgetsBeside })),
  sync(ctx) {
    const pdb = ctx.object;
    if (!pdb || !isBudget(pdb)) return undefined;
    const pods = ctx.list('Pod', { namespace: pdb.metadata.namespace }).filter((p) => budgetSelects(pdb, p));
    const now = ctx.now();
    const counted = expectedAndDesired(ctx, pdb, pods);
    if (typeof counted === 'string') {
      // failSafe: no disruption allowed while the budget cannot be counted
      ctx.patchStatus(PDB, ctx.key, { status: { disruptionsAllowed: 0, conditions: syncFailed(pdb, counted, now) } });
      return undefined;
    }
    const { expected, desired } = counted;
    const granted = disruptedPodsOf(pdb);
    const disrupted: Record<string, string> = {};
    let recheck: number | undefined;
    for (const p of pods) {
      const at = granted[p.metadata.name];
      if (at === undefined || p.metadata.deletionTimestamp !== undefined) continue;
      const expires = fromVirtualTimestamp(at) + DELETION_TIMEOUT_MS;
      if (expires < now) continue; // not deleted in time: the grant lapses (kube's NotDeleted)
      disrupted[p.metadata.name] = at;
      recheck = Math.min(recheck ?? expires, expires);
    }
    const healthy = pods.filter((p) => p.metadata.deletionTimestamp === undefined && !(disrupted[p.metadata.name] !== undefined && fromVirtualTimestamp(disrupted[p.metadata.name]!) + DELETION_TIMEOUT_MS > now) && podIsReady(p)).length;
    const allowed = expected <= 0 || healthy - desired <= 0 ? 0 : healthy - desired;
    // a merge patch: grants that went are removed by name
    const grants: Record<string, Json> = {};
    for (const name of Object.keys(granted)) grants[name] = null;
    Object.assign(grants, disrupted);
    ctx.patchStatus(PDB, ctx.key, {
      status: {
        observedGeneration: pdb.metadata.generation,
        currentHealthy: healthy,
        desiredHealthy: desired,
        expectedPods: expected,
        disruptionsAllowed: allowed,
        disruptedPods: Object.keys(disrupted).length > 0 ? grants : null,
        conditions: withDisruptionAllowed(pdb.status['conditions'], allowed, pdb.metadata.generation, now),
      },
    });
    return recheck !== undefined ? { afterMs: Math.max(0, recheck - now) + 1 } : undefined;
  },
});

/** `expectedPods` and `desiredHealthy` (getExpectedPodCount), or why they cannot be counted. */
function expectedAndDesired(ctx: Ctx, pdb: StoredObject, pods: StoredObject[]): { expected: number; desired: number } | string {
  const maxUnavailable = pdb.spec['maxUnavailable'];
  const minAvailable = pdb.spec['minAvailable'];
  if (maxUnavailable !== undefined && maxUnavailable !== null) {
    const expected = expectedScale(ctx, pods);
    if (typeof expected === 'string') return expected;
    const mu = scaled(maxUnavailable, expected);
    if (typeof mu === 'string') return mu;
    return { expected, desired: Math.max(0, expected - mu) };
  }
  if (minAvailable !== undefined && minAvailable !== null) {
    if (typeof minAvailable === 'number') return { expected: pods.length, desired: minAvailable };
    const expected = expectedScale(ctx, pods);
    if (typeof expected === 'string') return expected;
    const desired = scaled(minAvailable, expected);
    return typeof desired === 'string' ? desired : { expected, desired };
  }
  return { expected: 0, desired: 0 };
}

/** intstr.GetScaledValueFromIntOrPercent, rounding up. */
function scaled(v: Json, total: number): number | string {
  if (typeof v === 'number') return v;
  const m = typeof v === 'string' ? /^(\d+)%$/.exec(v) : null;
  if (!m) return `invalid value for IntOrString: invalid value ${JSON.stringify(v)}`;
  return Math.ceil((Number(m[1]) * total) / 100);
}

/** The sum of `spec.replicas` of the selected Pods' controllers (getExpectedScale). */
function expectedScale(ctx: Ctx, pods: StoredObject[]): number | string {
  const scale = new Map<string, number>();
  for (const p of pods) {
    const ref = p.metadata.ownerReferences.find((r) => r.controller === true);
    if (!ref) continue; // unmanaged: left out (kube's UnmanagedPods warning)
    if (scale.has(ref.uid)) continue;
    const found = controllerScale(ctx, ref.kind, p.metadata.namespace, ref.name, ref.uid);
    if (!found) return `found no controllers for pod "${p.metadata.name}"`;
    scale.set(found.uid, found.replicas);
  }
  let sum = 0;
  for (const n of scale.values()) sum += n;
  return sum;
}

function controllerScale(ctx: Ctx, kind: string, namespace: string | undefined, name: string, uid: string): { uid: string; replicas: number } | undefined {
  if (kind !== 'ReplicaSet' && kind !== 'StatefulSet' && kind !== 'ReplicationController' && kind !== 'Deployment') return undefined;
  const o = ctx.get(kind, keyOf({ namespace, name }));
  if (!o || o.metadata.uid !== uid) return undefined;
  if (kind === 'ReplicaSet') {
    // a Deployment's ReplicaSet counts as the Deployment (its scale is the Deployment's)
    const owner = o.metadata.ownerReferences.find((r) => r.controller === true);
    if (owner?.kind === 'Deployment') return controllerScale(ctx, 'Deployment', namespace, owner.name, owner.uid);
  }
  const replicas = o.spec['replicas'];
  return { uid: o.metadata.uid, replicas: typeof replicas === 'number' ? replicas : 1 };
}

/** The conditions with DisruptionAllowed=False, SyncFailed (failSafe). */
function syncFailed(pdb: StoredObject, message: string, now: number): Json[] {
  const list = Array.isArray(pdb.status['conditions']) ? (pdb.status['conditions'] as Json[]) : [];
  const prev = list.find((c) => isRecord(c) && c['type'] === 'DisruptionAllowed') as JsonObject | undefined;
  const base = withDisruptionAllowed(list, 0, typeof pdb.status['observedGeneration'] === 'number' ? pdb.status['observedGeneration'] : 0, now);
  return base.map((c) => (isRecord(c) && c['type'] === 'DisruptionAllowed' ? { ...c, reason: 'SyncFailed', message, ...(prev?.['status'] === 'False' && typeof prev['lastTransitionTime'] === 'string' ? { lastTransitionTime: prev['lastTransitionTime'] } : {}) } : c));
}
