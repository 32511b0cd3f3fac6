// What a hot-loop run keeps alive at its end (heap snapshot aggregated by constructor/type):
// survivors are what the scavenger copies, so they set the GC cost.
import { writeHeapSnapshot } from 'node:v8';
import { readFileSync } from 'node:fs';
import { defineController, simulate, type Scenario } from '../../src/index.js';
const hot = defineController({ name: 'hot', for: 'Thing', async reconcile(ctx) {
  const t = await ctx.client.tryGet<{ i: number }, { n?: number }>('Thing', ctx.key);
  if (!t) return;
  await ctx.client.updateStatus({ ...t, status: { n: ctx.clock.now() } });
} });
const scenario: Scenario = { seed: 1, controllers: [{ name: 'hot' }], initialObjects: [], workload: [{ at: 0, type: 'create', object: { kind: 'Thing', metadata: { name: 't', namespace: 'default' }, spec: { i: 1 } } }], faults: { events: [], background: [] }, options: { faultWindowMs: Number(process.argv[2] ?? 3000), settleMs: 0 } };
const r = await simulate(scenario, { controllers: [hot] });
(globalThis as { keep?: unknown }).keep = r;
const file = writeHeapSnapshot('/tmp/p46/hot.heapsnapshot');
const s = JSON.parse(readFileSync(file, 'utf8'));
const f = s.snapshot.meta.node_fields as string[];
const types = s.snapshot.meta.node_types[0] as string[];
const n = f.length;
const by = new Map<string, [number, number]>();
for (let i = 0; i < s.nodes.length; i += n) {
  const t = types[s.nodes[i + f.indexOf('type')]]!;
  const name = s.strings[s.nodes[i + f.indexOf('name')]] as string;
  const size = s.nodes[i + f.indexOf('self_size')] as number;
  const k = t === 'object' || t === 'closure' ? `${t} ${name.slice(0, 60)}` : t;
  const v = by.get(k) ?? [0, 0];
  v[0]++; v[1] += size; by.set(k, v);
}
for (const [k, [c, b]] of [...by].sort((a, b) => b[1][1] - a[1][1]).slice(0, 25)) console.log(String(c).padStart(8), (b / 1024).toFixed(0).padStart(8), 'KiB', k);
