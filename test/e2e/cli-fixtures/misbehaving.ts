/**
 * The pattern the CLI fixtures of misbehaving controllers share: a replicas controller that first
 * does something bad (`bad`), then takes its step as a correct one would.
 */
import { defineController, type ControllerDefinition, type ReconcileContext } from '../../../src/index.js';

async function step(ctx: ReconcileContext): Promise<void> {
  const rs = await ctx.client.tryGet<{ replicas: number }, { replicas?: number; observedGeneration?: number }>('ReplicaSet', ctx.key);
  if (!rs || (rs.status.replicas === rs.spec.replicas && rs.status.observedGeneration === rs.metadata.generation)) return;
  await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation } });
}

export function misbehaving(name: string, bad: (ctx: ReconcileContext) => unknown): ControllerDefinition {
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
