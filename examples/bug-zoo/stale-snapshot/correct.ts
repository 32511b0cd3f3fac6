import { defineController } from '../../../src/index.js';
import { latest } from '../shared/latest.js';
import { RESYNC_MS } from '../shared/resync.js';
import { deletePod, listPods, podOf, POD_KIND, repairPods, reportReplicas, RS_KIND, type Pod, type ReplicaSetSpec, type ReplicaSetStatus } from './replica-set.js';

/**
 * Fixed: decides from the latest state, and makes its creates conditional. It re-reads the set
 * by key and lists its pods from the API server (controller-runtime's API reader) rather than
 * the cache, and names pods by index (`web-0`, `web-1`, … as a StatefulSet does), so a decision
 * taken on an outdated view, or by a second replica at the same moment, fails with
 * AlreadyExists and is retried instead of creating a pod twice. Status is written with the set's
 * resourceVersion (optimistic concurrency).
 */
export const replicaSet = defineController({
  name: 'replica-set',
  for: RS_KIND,
  owns: [POD_KIND],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const rs = await latest<ReplicaSetSpec, ReplicaSetStatus>(ctx, RS_KIND);
    if (!rs || rs.metadata.deletionTimestamp !== undefined) return;
    const pods = await listPods(ctx, rs, true);
    const byName = new Map(pods.map((p) => [p.metadata.name, p]));
    const nameOf = (i: number) => `${rs.metadata.name}-${i}`;
    for (let i = 0; i < rs.spec.replicas; i++) if (!byName.has(nameOf(i))) await ctx.client.create(podOf(rs, { name: nameOf(i) }));
    const wanted = (p: Pod) => {
      const index = Number(p.metadata.name.slice(rs.metadata.name.length + 1));
      return Number.isInteger(index) && index >= 0 && index < rs.spec.replicas;
    };
    for (const p of pods) if (!wanted(p)) await deletePod(ctx, p);
    await repairPods(ctx, rs, pods.filter(wanted));
    await reportReplicas(ctx, rs);
  },
});
