import type { ReconcileContext, StoredObject } from '../../../src/index.js';
import { CLUSTER, MEMBER, ordinalOf, type ClusterSpec } from './cluster.js';

/**
 * The reconcile both cluster controllers share: create the missing ordinals, delete the
 * extras. `pickExtras` chooses which members go when there are too many; that choice is what
 * this pair is about. `live` reads the cluster and its members from the API server instead of
 * the cache, so a create or delete is never decided on a view that lags behind a scale change.
 */
export function reconcileMembers(pickExtras: (members: StoredObject[], keep: number) => StoredObject[], options: { live?: boolean } = {}) {
  const live = options.live ?? false;
  return async (ctx: ReconcileContext): Promise<void> => {
    const c = await ctx.client.tryGet<ClusterSpec>(CLUSTER, ctx.key, { live });
    // a Cluster being deleted gets no new members: under a foreground deletion the garbage collector deletes each one
    // made meanwhile, and one made again for every deletion holds the Cluster up for good (found by the foreground hunt)
    if (!c || c.metadata.deletionTimestamp !== undefined) return;
    const members = await ctx.client.list(MEMBER, { ...(c.metadata.namespace !== undefined ? { namespace: c.metadata.namespace } : {}), labelSelector: { matchLabels: { cluster: c.metadata.name } }, live });
    const have = new Set(members.map((m) => ordinalOf(m.metadata.name)));
    for (let i = 0; i < c.spec.members; i++) {
      if (have.has(i)) continue;
      await ctx.client.create({
        kind: MEMBER,
        metadata: {
          name: `${c.metadata.name}-${i}`,
          namespace: c.metadata.namespace,
          labels: { cluster: c.metadata.name },
          ownerReferences: [{ kind: CLUSTER, name: c.metadata.name, uid: c.metadata.uid, controller: true }],
        },
        spec: { ordinal: i },
      });
    }
    if (members.length > c.spec.members) {
      for (const m of pickExtras(members, c.spec.members)) await ctx.client.delete(MEMBER, { namespace: m.metadata.namespace, name: m.metadata.name });
    }
  };
}
