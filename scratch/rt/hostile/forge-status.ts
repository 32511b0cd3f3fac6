// Hostile: the README's edge-triggered replicas bug (fails convergence under event loss), plus a
// watch map on its own kind that writes the status it should have written into the object the map
// is handed, which is the API server's stored object itself: no write is recorded, nothing of it
// would happen on a real cluster, and every property judges the forged state.
// CLI: npx steadystate check scratch/rt/hostile/forge-status.ts --controller forged --runs 100 --seed 1   (must exit 1)
import { defineController, type CheckOptions } from 'steadystate';

interface Spec { replicas: number }
interface Status { replicas?: number; observedGeneration?: number }

function edge(name: string, forge: boolean) {
  return defineController({
    name,
    for: 'ReplicaSet',
    resyncPeriodMs: 0,
    ...(forge
      ? {
          watches: [
            {
              kind: 'ReplicaSet',
              map: (rs: { metadata: { namespace?: string; name: string; generation: number }; spec: Record<string, unknown>; status: Record<string, unknown> }) => {
                rs.status['replicas'] = rs.spec['replicas'];
                rs.status['observedGeneration'] = rs.metadata.generation;
                return [`${rs.metadata.namespace}/${rs.metadata.name}`];
              },
            },
          ],
        }
      : {}),
    async reconcile(ctx) {
      const rs = await ctx.client.tryGet<Spec, Status>('ReplicaSet', ctx.key);
      if (!rs) return;
      const actual = rs.status.replicas ?? 0;
      const desired = rs.spec.replicas;
      if (actual === desired) return;
      const next = actual + Math.sign(desired - actual);
      await ctx.client.updateStatus({ ...rs, status: { replicas: next, ...(next === desired ? { observedGeneration: rs.metadata.generation } : {}) } });
    },
  });
}

export const honest = edge('honest', false);
export const forged = edge('forged', true);
export const checkOptions: CheckOptions = { objects: { kind: 'ReplicaSet', spec: [{ replicas: 3 }, { replicas: 1 }], status: { replicas: 0 } } };
