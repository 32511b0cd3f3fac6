// Top allocation sites (sampling heap profiler, collected objects included) of one workload of
// drive.ts: `zoo` or `hot` (argv[2]); rows (argv[3]).
import { Session } from 'node:inspector/promises';
import { check, defineController, simulate, type Scenario } from '../../src/index.js';
import { defaultProperties } from '../../src/defaults.js';
import { Trace, type TraceEntry } from '../../src/sim/trace.js';
import { staleSnapshot } from '../../examples/bug-zoo/stale-snapshot/scenario.js';

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
const w = process.argv[2] ?? 'zoo';
const rowsN = Number(process.argv[3] ?? 25);
const entry = staleSnapshot;
const own = new Map(entry.properties.map((p) => [p.name, p]));
const properties = defaultProperties().map((p) => own.get(p.name) ?? p);
const body = async () => {
  if (w === 'zoo') await check(entry.correct, { ...entry.options, properties, runs: 300, seed: 2, shrink: false });
  else await simulate(hotScenario(70_000), { controllers: [hot] });
};
if (w === 'zoo') await check(entry.correct, { ...entry.options, properties, runs: 50, seed: 1, shrink: false });
else await simulate(hotScenario(2000), { controllers: [hot] });
let reconciles = 0;
const push = Trace.prototype.push;
Trace.prototype.push = function (this: Trace, e: TraceEntry) {
  if (e.type === 'reconcile:start') reconciles++;
  push.call(this, e);
};
const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');
await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
await body();
const { profile } = await session.post('HeapProfiler.stopSampling');
type N = { selfSize: number; callFrame: { functionName: string; url: string; lineNumber: number }; children: N[] };
const sites = new Map<string, number>();
let total = 0;
const walk = (n: N, parent: string) => {
  const cf = n.callFrame;
  const me = `${cf.functionName || "(anon)"} ${cf.url.replace(/.*speed46\//, "").replace(/.*wt-base46\//, "")}:${cf.lineNumber + 1}:${cf.columnNumber + 1}`;
  if (n.selfSize > 0) {
    total += n.selfSize;
    const key = `${me}  <- ${parent}`;
    sites.set(key, (sites.get(key) ?? 0) + n.selfSize);
  }
  for (const c of n.children) walk(c, me);
};
walk(profile.head as N, '');
console.log(`${w}: ${(total / 1024 / reconciles).toFixed(2)} KiB per reconcile, ${reconciles} reconciles, ${(total / 1048576).toFixed(1)} MiB`);
for (const [k, b] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, rowsN)) console.log(`${(100 * b / total).toFixed(1).padStart(5)}%  ${(b / 1024 / reconciles).toFixed(2).padStart(6)} KiB/rec  ${k}`);
