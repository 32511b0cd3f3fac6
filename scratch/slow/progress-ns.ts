// npx tsx scratch/slow/progress-ns.ts <case> <runs> <seed> [big]: a check (no shrinking) with its progress and CPU printed
import { check } from '../../src/index.js';
import { cases } from './fixtures/controllers.js';
const [name, runs, seed, big] = process.argv.slice(2);
const c = cases.find((x) => x.name === name)!;
let last = '';
const t0 = performance.now();
const cpu = () => Math.round((process.cpuUsage().user + process.cpuUsage().system) / 1000);
const r = await check(c.controllers, { ...c.options, ...(big ? { maxObjects: 4, maxActions: 8 } : {}), runs: Number(runs), seed: Number(seed), shrink: false, onProgress: (p: unknown) => { const s = JSON.stringify(p).slice(0, 160); if (s !== last) { last = s; console.log(Math.round(performance.now() - t0), 'cpu', cpu(), s); } } } as never);
console.log('cpu ms', cpu(), r.ok ? 'PASS' : `FAIL at run ${r.failedAtRun} ${r.property}: ${r.summary}\n${r.explanation.slice(0, 2500)}\nSCENARIO ${JSON.stringify(r.scenario)}`);
