/**
 * CLI/robustness fixture: reconcilers that misbehave in every way SPEC §8 lists. Each follows the
 * replicas pattern (one step per reconcile toward spec.replicas) and then misbehaves.
 */
import { defineController, type ControllerDefinition, type ReconcileContext } from '../../../src/index.js';
import type { CheckOptions } from '../../../src/harness/check-options.js';

interface Spec {
  replicas: number;
}
interface Status {
  replicas?: number;
  observedGeneration?: number;
}

async function step(ctx: ReconcileContext): Promise<void> {
  const rs = await ctx.client.tryGet<Spec, Status>('ReplicaSet', ctx.key);
  if (!rs) return;
  if ((rs.status.replicas ?? 0) === rs.spec.replicas && rs.status.observedGeneration === rs.metadata.generation) return;
  await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation } });
}

function misbehaving(name: string, bad: (ctx: ReconcileContext) => Promise<void> | void): ControllerDefinition {
  return defineController({
    name,
    for: 'ReplicaSet',
    resyncPeriodMs: 2_000,
    async reconcile(ctx) {
      await bad(ctx);
      await step(ctx);
    },
  });
}

export const throws = misbehaving('throws', () => {
  throw new Error('boom: cannot parse spec');
});
export const rejects = misbehaving('rejects', () => Promise.reject(new Error('upstream said no')));
export const neverSettles = misbehaving('never-settles', () => new Promise<void>(() => {}));
export const realTimer = misbehaving('real-timer', () => new Promise<void>((resolve) => setTimeout(resolve, 5)));
export const realNetwork = misbehaving('real-network', async () => {
  // a closed port on this machine: nothing leaves it, but it is real I/O outside the simulation
  await fetch('http://127.0.0.1:9/').catch(() => undefined);
});
export const spins = misbehaving('spins', () => {
  for (;;) {
    // a busy-wait that never yields
  }
});
/** Spins only on objects that want 3 replicas: the other scenarios of a check still finish. */
export const spinsOnThree = defineController({
  name: 'spins-on-three',
  for: 'ReplicaSet',
  // resync repairs lost events, so the scenarios that do not spin pass
  resyncPeriodMs: 2_000,
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet<Spec, Status>('ReplicaSet', ctx.key);
    if (rs?.spec.replicas === 3) for (;;) {
      // a loop whose exit depends on wall time passing, which it never does in virtual time
    }
    await step(ctx);
  },
});
export const fine = misbehaving('fine', () => undefined);

export const checkOptions: CheckOptions = { objects: { kind: 'ReplicaSet', spec: [{ replicas: 2 }, { replicas: 3 }], status: { replicas: 0 } }, runs: 10 };
