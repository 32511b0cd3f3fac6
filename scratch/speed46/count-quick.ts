// How many seam checks (kernelHooks.userCodeReturned) per reconcile in the hot loop.
import { defineController, simulate, type Scenario } from '../../src/index.js';
import { kernelHooks } from '../../src/sim/kernel.js';
import { Trace, type TraceEntry } from '../../src/sim/trace.js';
const hot = defineController({ name: 'hot', for: 'Thing', async reconcile(ctx) {
  const t = await ctx.client.tryGet<{ i: number }, { n?: number }>('Thing', ctx.key);
  if (!t) return;
  await ctx.client.updateStatus({ ...t, status: { n: ctx.clock.now() } });
} });
const scenario: Scenario = { seed: 1, controllers: [{ name: 'hot' }], initialObjects: [], workload: [{ at: 0, type: 'create', object: { kind: 'Thing', metadata: { name: 't', namespace: 'default' }, spec: { i: 1 } } }], faults: { events: [], background: [] }, options: { faultWindowMs: 2000, settleMs: 0 } };
let calls = 0, reconciles = 0;
const types = new Map<string, number>();
let inner: (() => void) | undefined;
Object.defineProperty(kernelHooks, 'userCodeReturned', { get: () => (inner ? () => { calls++; inner!(); } : undefined), set: (v) => { inner = v; }, configurable: true });
const push = Trace.prototype.push;
Trace.prototype.push = function (this: Trace, e: TraceEntry) { if (e.type === 'reconcile:start') reconciles++; types.set(e.type, (types.get(e.type) ?? 0) + 1); push.call(this, e); };
await simulate(scenario, { controllers: [hot] });
console.log({ calls, reconciles, perReconcile: calls / reconciles }, types);
