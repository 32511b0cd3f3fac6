import { simulate } from '../../src/index.js';
import { run } from './hot-run.js';
const { defineController } = await import('../../src/index.js');
const hot = defineController({ name: 'hot', for: 'Thing', async reconcile(ctx) { const t = await ctx.client.tryGet('Thing', ctx.key); if (!t) return; console.log(JSON.stringify(t)); } });
await simulate({ seed: 1, controllers: [{ name: 'hot' }], initialObjects: [], workload: [{ at: 0, type: 'create', object: { kind: 'Thing', metadata: { name: 't', namespace: 'default' }, spec: { i: 1 } } }], faults: { events: [], background: [] }, options: { faultWindowMs: 10, settleMs: 0 } }, { controllers: [hot], tailMs: 0 });
void run;
