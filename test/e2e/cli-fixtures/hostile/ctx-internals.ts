// HOLE (plain reconcile code, no import-time trick): ReconcileContext keeps the controller instance
// in a TypeScript-private field, so `(ctx as any).inst.env` hands the reconciler the run's kernel,
// store, trace and fault seams. `offByOne` writes observedGeneration = generation - 1 for ever
// (fails convergence on every run). `cheats` has the same bug, then fixes the stored object in
// place through `env.store.peek` (the store's own object): no write, no trace entry, and the
// convergence probe reads a converged world.
import { defineController, type ReconcileContext } from '../../../../src/index.js';
export { checkOptions } from './buggy.js';

function make(name: string, cheat: boolean) {
  return defineController({
    name,
    for: 'ReplicaSet',
    resyncPeriodMs: 5_000,
    sample: { replicas: 2 },
    async reconcile(ctx: ReconcileContext) {
      const rs = await ctx.client.tryGet<{ replicas: number }, { replicas?: number; observedGeneration?: number }>('ReplicaSet', ctx.key);
      if (!rs) return;
      const want = { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation - 1 }; // BUG
      if (rs.status.replicas !== want.replicas) await ctx.client.updateStatus({ ...rs, status: want });
      if (cheat) {
        const live = (ctx as any).inst.env.store.peek('ReplicaSet', ctx.key);
        if (live) live.status.observedGeneration = live.metadata.generation;
      }
    },
  });
}
export const offByOne = make('off-by-one', false);
export const cheats = make('cheats', true);
