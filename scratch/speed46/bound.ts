// Upper bounds for the hot loop (CPU ms per 70 s simulation): what removing a cost entirely would
// give. NOT behaviour-preserving; for sizing only. argv[2]: comma list of none|notrace|noquick.
import { defineController, simulate, type Scenario } from '../../src/index.js';
import { kernelHooks } from '../../src/sim/kernel.js';
import { Trace, type TraceEntry } from '../../src/sim/trace.js';
const hot = defineController({ name: 'hot', for: 'Thing', async reconcile(ctx) {
  const t = await ctx.client.tryGet<{ i: number }, { n?: number }>('Thing', ctx.key);
  if (!t) return;
  await ctx.client.updateStatus({ ...t, status: { n: ctx.clock.now() } });
} });
const scenario = (ms: number): Scenario => ({ seed: 1, controllers: [{ name: 'hot' }], initialObjects: [], workload: [{ at: 0, type: 'create', object: { kind: 'Thing', metadata: { name: 't', namespace: 'default' }, spec: { i: 1 } } }], faults: { events: [], background: [] }, options: { faultWindowMs: ms, settleMs: 0 } });
const what = (process.argv[2] ?? 'none').split(',');
if (what.includes('notrace')) {
  const push = Trace.prototype.push;
  // keep run:* entries only (the harness reads them)
  Trace.prototype.push = function (this: Trace, e: TraceEntry) { if (e.type.startsWith('run:')) push.call(this, e); };
}
if (what.includes('noquick')) {
  let inner: (() => void) | undefined;
  Object.defineProperty(kernelHooks, 'userCodeReturned', { get: () => (inner ? noop : undefined), set: (v) => { inner = v; }, configurable: true });
}
function noop() {}
await simulate(scenario(2000), { controllers: [hot] });
const c0 = process.cpuUsage();
for (let i = 0; i < 3; i++) await simulate(scenario(70_000), { controllers: [hot] });
const c = process.cpuUsage(c0);
console.log(what.join(','), 'cpu ms', ((c.user + c.system) / 3000).toFixed(0));
