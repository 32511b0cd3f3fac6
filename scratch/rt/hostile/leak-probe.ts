// Which objects the harness hands to controller code are its own (by reference), frozen, or copies?
import { defineController, simulate, type Scenario } from '../../../src/index.js';
const notes: string[] = [];
const probe = (where: string, o: { status?: Record<string, unknown>; metadata?: { labels?: Record<string, string> } }) => {
  try {
    (o.status as Record<string, unknown>)['forged'] = where;
    notes.push(`${where}: mutable (frozen: ${Object.isFrozen(o)})`);
  } catch (e) {
    notes.push(`${where}: refused (${(e as Error).message.slice(0, 60)})`);
  }
};
const c = defineController({
  name: 'leak',
  for: 'Widget',
  watches: [{ kind: 'Gadget', map: (g, view) => { probe('map object', g as never); for (const w of view.list('Widget')) probe('map view.list', w as never); return []; } }],
  resyncPeriodMs: 10_000,
  async reconcile(ctx) {
    const w = await ctx.client.tryGet('Widget', ctx.key);
    if (!w) return;
    if (!w.status['once']) {
      const g = await ctx.client.create({ kind: 'Gadget', metadata: { name: `g-${w.metadata.name}`, namespace: 'default' }, spec: {} });
      probe('create() result', g as never);
      const u = await ctx.client.updateStatus({ ...w, status: { once: true } });
      probe('updateStatus() result', u as never);
      const l = await ctx.client.list('Widget');
      probe('list() cached', l[0] as never);
      const p = await ctx.client.patch('Gadget', { namespace: 'default', name: `g-${w.metadata.name}` }, { metadata: { labels: { a: 'b' } } });
      probe('patch() result', p as never);
    }
  },
});
const s: Scenario = { seed: 1, controllers: [{ name: 'leak' }], initialObjects: [], workload: [{ at: 0, type: 'create', object: { kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: {} } }], faults: { events: [], background: [] }, options: { faultWindowMs: 2000, settleMs: 2000 } } as never;
const { run } = await simulate(s, { controllers: [c] });
console.log(notes.join('\n'));
for (const o of run.finalObjects) console.log('final', o.kind, o.metadata.name, JSON.stringify(o.status));
