// Top allocation sites per simulation of the reference experiment's scenario with no ticks (its
// fixed cost): sampling heap profiler, collected objects included. argv[2]: rows.
import { Session } from 'node:inspector/promises';
import { simulate } from '../../src/index.js';
import { experimentScenario, levelEveryTick } from '../../examples/replicas/experiment.js';
const rowsN = Number(process.argv[2] ?? 30);
const ticks = Number(process.argv[3] ?? 0);
const o = { trials: 1, target: 3, ticks, lossRate: 0.3, seed: 1 };
const one = (i: number) => simulate(experimentScenario(levelEveryTick.name, 1 + i, o), { controllers: [levelEveryTick], traceReads: false, tailMs: 0 });
for (let i = 0; i < 300; i++) await one(i);
const n = 2000;
const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');
await session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
for (let i = 0; i < n; i++) await one(i);
const { profile } = await session.post('HeapProfiler.stopSampling');
type N = { selfSize: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; children: N[] };
const sites = new Map<string, number>();
const files = new Map<string, number>();
let total = 0;
const walk = (x: N, parent: string) => {
  const cf = x.callFrame;
  const f = cf.url.replace(/.*speed46\//, '').replace(/.*wt-base46\//, '');
  const me = `${cf.functionName || '(anon)'} ${f}`;
  if (x.selfSize > 0) {
    total += x.selfSize;
    sites.set(`${me}  <- ${parent}`, (sites.get(`${me}  <- ${parent}`) ?? 0) + x.selfSize);
    files.set(f, (files.get(f) ?? 0) + x.selfSize);
  }
  for (const c of x.children) walk(c, me);
};
walk(profile.head as N, '');
console.log(`${(total / 1024 / n).toFixed(1)} KiB per simulation`);
for (const [k, b] of [...files].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`${(100 * b / total).toFixed(1).padStart(5)}%  ${(b / 1024 / n).toFixed(2).padStart(6)} KiB/sim  ${k}`);
console.log('--');
for (const [k, b] of [...sites].filter(([k]) => process.argv[4] === undefined || k.includes(process.argv[4])).sort((a, b) => b[1] - a[1]).slice(0, rowsN)) console.log(`${(100 * b / total).toFixed(1).padStart(5)}%  ${(b / 1024 / n).toFixed(2).padStart(6)} KiB/sim  ${k}`);
