// Hostile attempt H2 (rt46): the shared hot-looping controller, which once it has looped long enough
// that it would be judged (ticks > 20) throws from a real (host) timer: an uncaught exception of the
// worker thread, outside any run, instead of a verdict. Also tries the host's queueMicrotask and an
// unhandled rejection in case timers are virtual.
import { defineController } from '../../../src/index.js';
export const crashes = defineController({
  name: 'crashes',
  for: 'ReplicaSet',
  sample: { replicas: 2 },
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet<{ replicas: number }, { replicas?: number; observedGeneration?: number; ticks?: number }>('ReplicaSet', ctx.key);
    if (!rs) return;
    if ((rs.status.ticks ?? 0) > 20) {
      const boom = new Error('boom');
      globalThis.setTimeout(() => { throw boom; }, 0);
      globalThis.setImmediate?.(() => { throw boom; });
      void Promise.reject(boom);
    }
    await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation, ticks: (rs.status.ticks ?? 0) + 1 } });
    return { requeueAfter: 100 };
  },
});
export const checkOptions = { objects: { kind: 'ReplicaSet', spec: [{ replicas: 2 }, { replicas: 3 }], status: { replicas: 0 } } };
