import { defineController, simulate, type Scenario } from '/work/wt/speed46/src/index.js';
let seen: unknown;
const hot = defineController({ name: 'hot', for: 'Thing', async reconcile(ctx) {
  const t = await ctx.client.tryGet<{ i: number }, { n?: number }>('Thing', ctx.key);
  if (!t) return; seen = t;
  await ctx.client.updateStatus({ ...t, status: { n: ctx.clock.now() } });
} });
const scenario: Scenario = { seed: 1, controllers: [{ name: 'hot' }], initialObjects: [], workload: [{ at: 0, type: 'create', object: { kind: 'Thing', metadata: { name: 't', namespace: 'default' }, spec: { i: 1 } } }], faults: { events: [], background: [] }, options: { faultWindowMs: 20, settleMs: 0 } };
const { run } = await simulate(scenario, { controllers: [hot] });
console.log(JSON.stringify(seen));
console.log((run.trace as unknown as {slice(n:number):unknown[]}).slice(-8).map((e) => JSON.stringify(e)).join('\n'));
