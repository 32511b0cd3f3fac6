// top allocation sites (sampling heap profiler, collected objects included) of the hot loop or zoo
import { Session } from 'node:inspector/promises';
const which = process.argv[2] ?? 'hot';
const run = which === 'hot' ? (await import('./hot-run.js')).run : (await import('./zoo-run.js')).run;
await run(true);
const s = new Session(); s.connect();
await s.post('HeapProfiler.enable');
await s.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
const n = await run(false);
const { profile } = await s.post('HeapProfiler.stopSampling');
const by = new Map<string, number>();
let total = 0;
const walk = (node: any, stack: string[]) => {
  const f = node.callFrame; const name = `${f.functionName || '(anon)'} ${f.url.split('/').slice(-2).join('/')}`;
  if (node.selfSize > 0) { total += node.selfSize; by.set(name, (by.get(name) ?? 0) + node.selfSize); }
  for (const c of node.children) walk(c, stack);
};
walk(profile.head, []);
console.log(`total ${(total / 1024 / 1024).toFixed(1)} MiB, ${(total / n / 1024).toFixed(2)} KiB per ${which === 'hot' ? 'write' : 'scenario'}`);
for (const [k, v] of [...by].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${(100 * v / total).toFixed(1).padStart(5)}%  ${(v / n).toFixed(0).padStart(7)} B  ${k}`);
