// Drives one workload of bench/waste.ts for profiling: `zoo` or `hot` (argv[2]), n repetitions (argv[3]).
import { check, defineController, simulate, type Scenario } from '../../src/index.js';
import { defaultProperties } from '../../src/defaults.js';
import { staleSnapshot } from '../../examples/bug-zoo/stale-snapshot/scenario.js';
import { runReferenceExperiment } from '../../examples/replicas/experiment.js';

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
  return {
    seed: 1,
    controllers: [{ name: 'hot' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: 'Thing', metadata: { name: 't', namespace: 'default' }, spec: { i: 1 } } }],
    faults: { events: [], background: [] },
    options: { faultWindowMs: ms, settleMs: 0 },
  };
}
const w = process.argv[2] ?? 'zoo';
const n = Number(process.argv[3] ?? 1);
const entry = staleSnapshot;
const own = new Map(entry.properties.map((p) => [p.name, p]));
const properties = defaultProperties().map((p) => own.get(p.name) ?? p);
if (w === 'zoo') await check(entry.correct, { ...entry.options, properties, runs: 50, seed: 1, shrink: false });
if (w === 'hot') await simulate(hotScenario(2000), { controllers: [hot] });
if (w === 'ref') await runReferenceExperiment({ trials: 100 });
const c0 = process.cpuUsage();
for (let i = 0; i < n; i++) {
  if (w === 'zoo') await check(entry.correct, { ...entry.options, properties, runs: 300, seed: 2, shrink: false });
  if (w === 'hot') await simulate(hotScenario(70_000), { controllers: [hot] });
  if (w === 'ref') await runReferenceExperiment({ trials: 2000 });
}
const c = process.cpuUsage(c0);
console.log(w, 'cpu ms', ((c.user + c.system) / 1000 / n).toFixed(0));
