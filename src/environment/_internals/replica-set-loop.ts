import type { EnvironmentLoop, EnvironmentSyncResult } from '../define-environment-actor.js';
import { conditionSince, specNumber } from './conditions.js';
import { isActive, isPodReady, podFor } from './pods.js';
import { claim, orphanWatch } from './claim.js';
import { keyOf, type JsonObject, type StoredObject } from '../../store/object.js';

/**
 * The ReplicaSet controller: keeps `spec.replicas` active pods (created from the template,
 * controlled by the ReplicaSet; surplus deleted not-ready and newest first) and reports
 * `replicas`, `readyReplicas`, `availableReplicas` (Ready for `minReadySeconds`) and
 * `observedGeneration`. Failed and succeeded pods do not count, so an evicted or failed pod is
 * replaced. Orphaned pods its selector matches are adopted, and pods whose labels it no longer
 * matches released (./claim.ts). Step faults act on: `replicaset:create-pods` (delay = a slow rollout).
 * @internal
 */
export function replicaSetLoop<P extends JsonObject>(): EnvironmentLoop<P> {
  return {
    for: 'ReplicaSet',
    owns: ['Pod'],
    watches: [orphanWatch('Pod', 'ReplicaSet')],
    sync(ctx): EnvironmentSyncResult {
      const rs = ctx.object;
      if (!rs || rs.metadata.deletionTimestamp !== undefined) return;
      claim(ctx, rs, 'Pod');
      const want = Math.max(0, specNumber(rs, 'replicas', 1));
      const ns = { namespace: rs.metadata.namespace, ownedBy: rs };
      let active = ctx.list('Pod', ns).filter(isActive);
      let after: number | undefined;
      if (active.length < want) {
        const d = ctx.decide('replicaset:create-pods', rs, active.length);
        if (d.type === 'delay') after = d.ms;
        else if (d.type === 'block' && d.untilMs !== undefined) after = Math.max(0, d.untilMs - ctx.now());
        else if (d.type === 'proceed') {
          for (let i = active.length; i < want; i++) ctx.create(podFor(rs, { generateName: `${rs.metadata.name}-` }));
          ctx.record('replicaset:scaled', { key: ctx.key, from: active.length, to: want });
        }
      } else if (active.length > want) {
        const doomed = [...active].sort(deletionOrder).slice(0, active.length - want);
        for (const p of doomed) ctx.delete('Pod', keyOf(p.metadata));
        ctx.record('replicaset:scaled', { key: ctx.key, from: active.length, to: want });
      }
      active = ctx.list('Pod', ns).filter(isActive);
      const minReadyMs = specNumber(rs, 'minReadySeconds', 0) * 1000;
      const now = ctx.now();
      let ready = 0;
      let available = 0;
      for (const p of active) {
        if (!isPodReady(p)) continue;
        ready++;
        const since = conditionSince(p, 'Ready') ?? now;
        if (now - since >= minReadyMs) available++;
        else after = Math.min(after ?? Infinity, since + minReadyMs - now);
      }
      ctx.patchStatus('ReplicaSet', ctx.key, {
        status: { replicas: active.length, fullyLabeledReplicas: active.length, readyReplicas: ready, availableReplicas: available, observedGeneration: rs.metadata.generation },
      });
      return after !== undefined ? { afterMs: after } : undefined;
    },
  };
}

/**
 * Which pods go first on scale-down (controller.ActivePods order, simplified): unscheduled, then
 * not ready, then the one in the highest placement slot (the newest, as a rule; by slot so the
 * pods that stay are the same whatever order they were created in).
 */
function deletionOrder(a: StoredObject, b: StoredObject): number {
  const rank = (p: StoredObject) => (typeof p.spec['nodeName'] !== 'string' ? 0 : isPodReady(p) ? 2 : 1);
  return rank(a) - rank(b) || slotOf(b) - slotOf(a) || (a.metadata.name < b.metadata.name ? 1 : -1);
}

/** The placement slot podLifecycle encodes in the last octet of the pod IP (-1 when unplaced). */
function slotOf(p: StoredObject): number {
  const ip = p.status['podIP'];
  const m = typeof ip === 'string' ? /\.(\d+)$/.exec(ip) : null;
  return m ? Number(m[1]) : -1;
}
