// Shared buggy controller for the red-team fixtures: never stops writing (a status counter bumped
// every 100 ms), so no-hot-loop / convergence fail on every run an honest check makes.
import { defineController, type ReconcileContext } from '../../../../src/index.js';
export function makeBuggy(name: string, before?: (ctx: ReconcileContext) => unknown) {
  return defineController({
    name,
    for: 'ReplicaSet',
    sample: { replicas: 2 },
    async reconcile(ctx) {
      await before?.(ctx);
      const rs = await ctx.client.tryGet<{ replicas: number }, { replicas?: number; observedGeneration?: number; ticks?: number }>('ReplicaSet', ctx.key);
      if (!rs) return;
      await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation, ticks: (rs.status.ticks ?? 0) + 1 } });
      return { requeueAfter: 100 };
    },
  });
}
export const checkOptions = { objects: { kind: 'ReplicaSet', spec: [{ replicas: 2 }, { replicas: 3 }], status: { replicas: 0 } } };
