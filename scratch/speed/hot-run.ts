import { defineController, simulate, type Scenario } from '../../src/index.js';
const hot = defineController({
  name: 'hot',
  for: 'Thing',
  async reconcile(ctx) {
    const t = await ctx.client.tryGet<{ i: number }, { n?: number }>('Thing', ctx.key);
    if (!t) return;
    await ctx.client.updateStatus({ ...t, status: { n: ctx.clock.now() } });
  },
});
function hotScenario(ms: number): Scenario {
  return { seed: 1, controllers: [{ name: 'hot' }], initialObjects: [], workload: [{ at: 0, type: 'create', object: { kind: 'Thing', metadata: { name: 't', namespace: 'default' }, spec: { i: 1 } } }], faults: { events: [], background: [] }, options: { faultWindowMs: ms, settleMs: 0 } };
}
export async function run(warm: boolean): Promise<number> {
  const r = await simulate(hotScenario(warm ? 2000 : 20000), { controllers: [hot] });
  return r.run.writes.length;
}
