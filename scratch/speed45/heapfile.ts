// allocation by file of the allocating function (self), zoo check 300 runs
import { Session } from 'node:inspector/promises';
import { check } from '../../src/index.js';
import { defaultProperties } from '../../src/defaults.js';
import { staleSnapshot } from '../../examples/bug-zoo/stale-snapshot/scenario.js';
const entry = staleSnapshot;
const own = new Map(entry.properties.map((p) => [p.name, p]));
const properties = defaultProperties().map((p) => own.get(p.name) ?? p);
await check(entry.correct, { ...entry.options, properties, runs: 50, seed: 1, shrink: false });
const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');
await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
await check(entry.correct, { ...entry.options, properties, runs: 300, seed: 2, shrink: false });
const { profile } = await session.post('HeapProfiler.stopSampling');
type N = { selfSize: number; callFrame: { functionName: string; url: string }; children: N[] };
const by = new Map<string, number>();
let total = 0;
const walk = (n: N, inherited: string) => {
  let f = n.callFrame.url.replace(/.*speed45\//, '');
  if (f === '' || f.startsWith('node:')) f = inherited; // builtins: charged to the caller's file
  if (n.selfSize > 0) { total += n.selfSize; by.set(f, (by.get(f) ?? 0) + n.selfSize); }
  for (const c of n.children) walk(c, f);
};
walk(profile.head as N, '(root)');
const dir = (f: string) => f.split('/').slice(0, f.startsWith('src/') ? 2 : 1).join('/');
const byDir = new Map<string, number>();
for (const [f, b] of by) byDir.set(dir(f), (byDir.get(dir(f)) ?? 0) + b);
console.log('total', (total / 1048576).toFixed(1), 'MiB');
for (const [k, b] of [...byDir].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log((100 * b / total).toFixed(1).padStart(6) + '%', k);
console.log('--- files');
for (const [k, b] of [...by].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log((100 * b / total).toFixed(1).padStart(6) + '%', k);
