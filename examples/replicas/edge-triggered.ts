import { defineController } from '../../src/index.js';
import { REPLICAS_KIND, step, type ReplicasSpec, type ReplicasStatus } from './replicas.js';

/**
 * Edge-triggered: one step per event and never a requeue. It moves only when an event arrives,
 * so three steps need three delivered events; lose one and it drifts forever.
 */
export const edgeTriggered = defineController({
  name: 'edge-triggered',
  for: REPLICAS_KIND,
  resyncPeriodMs: 0,
  // what `check` generates objects from when no other objects are given
  sample: [{ replicas: 3 }, { replicas: 1 }],
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet<ReplicasSpec, ReplicasStatus>(REPLICAS_KIND, ctx.key);
    if (!rs) return;
    const actual = rs.status.replicas ?? 0;
    const desired = rs.spec.replicas;
    if (actual === desired) return;
    const next = step(actual, desired);
    await ctx.client.updateStatus({ ...rs, status: { replicas: next, ...(next === desired ? { observedGeneration: rs.metadata.generation } : {}) } });
  },
});
