import { defineController } from '../../../src/index.js';
import { RESYNC_MS } from '../shared/resync.js';
import { deletePod, listPods, podOf, POD_KIND, repairPods, reportReplicas, RS_KIND, type ReplicaSetSpec, type ReplicaSetStatus } from './replica-set.js';

/**
 * BUG (stale-snapshot decision): counts pods in the informer cache and acts on the count with
 * server-named pods. The cache lags the API server (a delayed or lost watch event, a stale
 * replica after a restart), so right after creating pods it may not show them yet: the
 * controller creates them again, the set overshoots (scale to 5), and once the cache catches up
 * it deletes the extras (back to 3).
 */
export const buggyReplicaSet = defineController({
  name: 'replica-set',
  for: RS_KIND,
  owns: [POD_KIND],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet<ReplicaSetSpec, ReplicaSetStatus>(RS_KIND, ctx.key);
    if (!rs || rs.metadata.deletionTimestamp !== undefined) return;
    const pods = await listPods(ctx, rs, false);
    const diff = rs.spec.replicas - pods.length;
    for (let i = 0; i < diff; i++) await ctx.client.create(podOf(rs, { generateName: `${rs.metadata.name}-` }));
    const newestFirst = [...pods].sort((a, b) => Number(b.metadata.resourceVersion) - Number(a.metadata.resourceVersion));
    const extra = newestFirst.slice(0, Math.max(0, -diff));
    for (const p of extra) await deletePod(ctx, p);
    await repairPods(ctx, rs, pods.filter((p) => !extra.includes(p)));
    await reportReplicas(ctx, rs);
  },
});
