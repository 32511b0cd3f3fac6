// allocation of `fn` (argv[3]) by its first caller that is not itself, workload argv[2]
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
const target = process.argv[2] ?? 'cloneJson';
const by = new Map<string, number>();
let total = 0;
const walk = (n: N, stack: string[]) => {
  const me = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/.*speed45\//, '')}`;
  const st = [...stack, me];
  const sub = (x: N): number => x.children.reduce((s, c) => s + sub(c), x.selfSize);
  if (n.callFrame.functionName === target && stack.at(-1)?.split(' ')[0] !== target) {
    const s = sub(n);
    total += s;
    const k = stack.slice(-2).join(' <- ');
    by.set(k, (by.get(k) ?? 0) + s);
    return;
  }
  for (const c of n.children) walk(c, st);
};
walk(profile.head as N, []);
console.log(target, (total / 1048576).toFixed(1), 'MiB');
for (const [k, b] of [...by].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log((b / 1048576).toFixed(1).padStart(6), k);
