/**
 * CLI fixture: imports steadystate by its package name, as a user's module does. The store
 * throws its NotFoundError from the CLI's copy of steadystate; `instanceof` against the class
 * this module imported holds only if the CLI loaded this module into the same module graph
 * (tsx `register()`, not `tsImport()`).
 */
import { defineController, NotFoundError } from 'steadystate';
import type { CheckOptions } from 'steadystate';

export const sharedCopy = defineController({
  name: 'shared-copy',
  for: 'ReplicaSet',
  resyncPeriodMs: 2_000,
  async reconcile(ctx) {
    try {
      await ctx.client.get('ReplicaSet', 'default/does-not-exist', { live: true });
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw new Error(`two copies of steadystate: the store's ${(err as Error).name} is not the NotFoundError this module imported`);
    }
    const rs = await ctx.client.tryGet<{ replicas: number }, { replicas?: number; observedGeneration?: number }>('ReplicaSet', ctx.key);
    if (!rs || rs.status.observedGeneration === rs.metadata.generation) return;
    await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation } });
  },
});

export const checkOptions: CheckOptions = { objects: { kind: 'ReplicaSet', spec: [{ replicas: 2 }], status: { replicas: 0 } } };
