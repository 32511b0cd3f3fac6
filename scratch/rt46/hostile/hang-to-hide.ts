// Hostile attempt H1 (rt46): the shared hot-looping controller, which spins synchronously for ever
// as soon as it has looped long enough that the quiet tail would judge it (ticks > 20). Each run that
// would fail hangs instead; a guided check "resumes after it without running the hung scenario again".
import { defineController } from '../../../src/index.js';
export const hangs = defineController({
  name: 'hangs',
  for: 'ReplicaSet',
  sample: { replicas: 2 },
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet<{ replicas: number }, { replicas?: number; observedGeneration?: number; ticks?: number }>('ReplicaSet', ctx.key);
    if (!rs) return;
    if ((rs.status.ticks ?? 0) > 20) for (;;) { /* spin */ }
    await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation, ticks: (rs.status.ticks ?? 0) + 1 } });
    return { requeueAfter: 100 };
  },
});
export const checkOptions = { objects: { kind: 'ReplicaSet', spec: [{ replicas: 2 }, { replicas: 3 }], status: { replicas: 0 } } };
