// Shared buggy controller for the red-team fixtures: never stops writing (a status counter bumped
// every 100 ms), so no-hot-loop / convergence fail on every run an honest check makes. The reconcile
// its own write's watch event brings skips the write (the last stamp is under 100 virtual ms old):
// a stamp per event looped at ~1000 writes/s, and simulating and judging those writes was most of
// these tests' time (the check's path is the same: run 1 fails no-hot-loop, stopped early, confirmed).
import { defineController, type ReconcileContext } from '../../../../src/index.js';
export function makeBuggy(name: string, before?: (ctx: ReconcileContext) => unknown) {
  return defineController({
    name,
    for: 'ReplicaSet',
    sample: { replicas: 2 },
    async reconcile(ctx) {
      await before?.(ctx);
      const rs = await ctx.client.tryGet<{ replicas: number }, { replicas?: number; observedGeneration?: number; ticks?: number; at?: number }>('ReplicaSet', ctx.key);
      if (!rs) return;
      const now = ctx.clock.now();
      if (now - (rs.status.at ?? -Infinity) >= 100) await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation, ticks: (rs.status.ticks ?? 0) + 1, at: now } });
      return { requeueAfter: 100 };
    },
  });
}
export const checkOptions = { objects: { kind: 'ReplicaSet', spec: [{ replicas: 2 }, { replicas: 3 }], status: { replicas: 0 } } };
