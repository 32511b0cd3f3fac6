/**
 * `npx tsx bench/big-world.ts [objects] [ctl]`: simulates that many objects of one kind (default
 * 1,000,000), without a controller or with one that writes each object's status once (`ctl`),
 * and prints wall time and heap. Issue 17 item 15; too slow for the test suite (the suite runs
 * the same fixture at 20,000 objects on a small stack, test/robustness/big-world.test.ts).
 */
import { simulate } from '../src/harness/simulate.js';
import { defineController } from '../src/index.js';

const n = Number(process.argv[2] ?? '1000000');
const withController = process.argv[3] === 'ctl';
const objects = Array.from({ length: n }, (_, i) => ({ kind: 'Thing', metadata: { name: `t-${i}`, namespace: 'default' }, spec: { i } }));
const c = defineController({
  name: 'c',
  for: 'Thing',
  resyncPeriodMs: 0,
  async reconcile(ctx) {
    const t = await ctx.client.tryGet('Thing', ctx.key);
    if (t && t.status['seen'] !== true) await ctx.client.updateStatus({ ...t, status: { seen: true } });
  },
});
const t0 = performance.now();
const { run } = await simulate(
  { seed: 1, controllers: withController ? [{ name: 'c' }] : [], initialObjects: objects, workload: [], faults: { events: [], background: [] }, options: { faultWindowMs: 1000, settleMs: 3000 } },
  { controllers: [c], tailMs: 0, traceReads: false },
);
const seen = run.finalObjects.filter((o) => o.status['seen'] === true).length;
console.log(`${n} objects${withController ? ', one controller' : ''}: ${((performance.now() - t0) / 1000).toFixed(1)} s, ${run.trace.length} trace entries, ${seen} reconciled, exhausted: ${run.timing.exhausted ?? false}, heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB`);
