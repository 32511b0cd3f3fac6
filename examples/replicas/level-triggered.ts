import { defineController } from '../../src/index.js';
import { REPLICAS_KIND, step, TICK_MS, type ReplicasSpec, type ReplicasStatus } from './replicas.js';

/**
 * Level-triggered: every reconcile reads the current object by key, compares desired with
 * actual, takes one step, and asks to be called again until they match. A lost event only
 * delays it: the requeue comes back regardless, and a periodic resync re-enqueues the key even
 * when the very first event was lost.
 */
export const levelTriggered = defineController({
  name: 'level-triggered',
  for: REPLICAS_KIND,
  resyncPeriodMs: 5 * TICK_MS,
  // what `check` generates objects from when no other objects are given
  sample: [{ replicas: 3 }, { replicas: 1 }],
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet<ReplicasSpec, ReplicasStatus>(REPLICAS_KIND, ctx.key);
    if (!rs) return;
    const actual = rs.status.replicas ?? 0;
    const desired = rs.spec.replicas;
    if (actual === desired && rs.status.observedGeneration === rs.metadata.generation) return;
    const next = step(actual, desired);
    await ctx.client.updateStatus({ ...rs, status: { replicas: next, ...(next === desired ? { observedGeneration: rs.metadata.generation } : {}) } });
    return next === desired ? undefined : { requeueAfter: TICK_MS };
  },
});
