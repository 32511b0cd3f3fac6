/**
 * CLI fixture (session 7): controllers that replace built-ins the harness also uses. Each
 * follows the replicas pattern and then misbehaves; none may make a check pass.
 */
import { defineController, type ControllerDefinition, type ReconcileContext } from '../../../src/index.js';

async function step(ctx: ReconcileContext): Promise<void> {
  const rs = await ctx.client.tryGet<{ replicas: number }, { replicas?: number; observedGeneration?: number }>('ReplicaSet', ctx.key);
  if (!rs || (rs.status.replicas === rs.spec.replicas && rs.status.observedGeneration === rs.metadata.generation)) return;
  await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation } });
}

function misbehaving(name: string, bad: (ctx: ReconcileContext) => unknown): ControllerDefinition {
  return defineController({
    name,
    for: 'ReplicaSet',
    sample: { replicas: 2 },
    async reconcile(ctx) {
      await bad(ctx);
      await step(ctx);
    },
  });
}

/** `Math.max = () => 0` in a reconcile (the harness's scheduler and kernel use Math.max). */
export const replacesMathMax = misbehaving('replaces-math-max', () => {
  Math.max = () => 0;
});
