// Which handed-out objects are the store's own? Each avenue mutated alone; then a live read and the final state.
import { defineController, simulate, type Scenario } from '../../../src/index.js';
for (const avenue of ['create', 'updateStatus', 'patch', 'map'] as const) {
  let seenLive = '';
  const c = defineController({
    name: 'leak',
    for: 'Widget',
    watches: [{ kind: 'Gadget', map: (g) => { if (avenue === 'map') (g.status as Record<string, unknown>)['forged'] = 'map'; return []; } }],
    resyncPeriodMs: 1_000,
    async reconcile(ctx) {
      const w = await ctx.client.tryGet('Widget', ctx.key);
      if (!w) return;
      const existing = await ctx.client.tryGet('Gadget', { namespace: 'default', name: 'g' }, { live: true });
      if (existing) { seenLive = JSON.stringify(existing.status); return; }
      const g = await ctx.client.create({ kind: 'Gadget', metadata: { name: 'g', namespace: 'default' }, spec: {} });
      if (avenue === 'create') (g.status as Record<string, unknown>)['forged'] = 'create';
      const u = await ctx.client.updateStatus({ ...g, status: { n: 1 } });
      if (avenue === 'updateStatus') (u.status as Record<string, unknown>)['forged'] = 'updateStatus';
      const p = await ctx.client.patch('Gadget', { namespace: 'default', name: 'g' }, { metadata: { labels: { a: 'b' } } });
      if (avenue === 'patch') (p.status as Record<string, unknown>)['forged'] = 'patch';
    },
  });
  const s: Scenario = { seed: 1, controllers: [{ name: 'leak' }], initialObjects: [], workload: [{ at: 0, type: 'create', object: { kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: {} } }], faults: { events: [], background: [] }, options: { faultWindowMs: 3000, settleMs: 3000 } } as never;
  const { run } = await simulate(s, { controllers: [c] });
  console.log(`${avenue.padEnd(13)} later live read: ${seenLive}  final: ${JSON.stringify(run.finalObjects.find((o) => o.kind === 'Gadget')?.status)}`);
}
