import { defineController, isStoreError, type ControllerDefinition } from '../../src/index.js';

/**
 * A correct controller whose end state depends on the path (the learned-masks target): each Claim
 * takes the lowest slot no other claim holds, in reconcile order (allocation order); with
 * `stamp`, it records when it synced in an annotation (a time-valued annotation); it creates one
 * Job per generation it sees (two quick spec changes may leave one out). `edge` is the buggy
 * twin: it acts only on the first event it sees.
 */
/** The kind the allocator reconciles. */
export const CLAIM = 'Claim';

/** Allocation order: each claim takes the lowest slot no other claim holds, in reconcile order. */
export function allocator(name: string, options: { stamp?: boolean; edge?: boolean } = {}): ControllerDefinition {
  return defineController({
    name,
    for: CLAIM,
    owns: ['Job'],
    resyncPeriodMs: options.edge ? 0 : 2000,
    async reconcile(ctx) {
      const c = await ctx.client.tryGet<{ size: number }, { slot?: number; size?: number }>(CLAIM, ctx.key);
      if (!c || c.metadata.deletionTimestamp !== undefined) return;
      const taken = new Set((await ctx.client.list<unknown, { slot?: number }>(CLAIM, { live: true })).filter((o) => o.metadata.uid !== c.metadata.uid).map((o) => o.status.slot));
      let slot = c.status.slot;
      if (slot === undefined) for (slot = 0; taken.has(slot); slot++);
      // one Job per generation the controller sees: two quick spec changes may leave one out
      const job = `${c.metadata.name}-g${c.metadata.generation}`;
      try {
        await ctx.client.create({ kind: 'Job', metadata: { name: job, namespace: 'default', ownerReferences: [{ apiVersion: 'v1', kind: CLAIM, name: c.metadata.name, uid: c.metadata.uid, controller: true }] }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'resize', image: 'resizer:1', env: [{ name: 'SIZE', value: String(c.spec.size) }] }] } } } });
      } catch (err) {
        if (!isStoreError(err, 'AlreadyExists')) throw err;
      }
      if (options.edge && c.status.size !== undefined) return; // BUG: acts only on the first event it sees
      if (c.status.slot === slot && c.status.size === c.spec.size) return;
      await ctx.client.updateStatus({ ...c, status: { slot, size: c.spec.size } });
      if (options.stamp) await ctx.client.patch(CLAIM, ctx.key, { metadata: { annotations: { 'example.com/synced-at-ms': String(ctx.clock.now()) } } });
    },
  });
}

