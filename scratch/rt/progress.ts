// npx tsx scratch/rt46/progress.ts <case> <runs> <seed> [big]: a check with its progress printed (phase, runs, failures)
import { check } from '../../src/index.js';
import { cases } from './fixtures/controllers.js';
const [name, runs, seed, big] = process.argv.slice(2);
const c = cases.find((x) => x.name === name)!;
let last = '';
const t0 = performance.now();
const r = await check(c.controllers, { ...c.options, ...(big ? { maxObjects: 4, maxActions: 8 } : {}), runs: Number(runs), seed: Number(seed), shrinkTimeLimitMs: 1000, onProgress: (p: unknown) => { const s = JSON.stringify(p).slice(0, 160); if (s !== last) { last = s; console.log(Math.round(performance.now() - t0), s); } } } as never);
console.log(r.ok ? 'PASS' : `FAIL at run ${r.failedAtRun} ${r.property}: ${r.summary}\n${r.explanation.slice(0, 2500)}\nSCENARIO ${JSON.stringify(r.scenario)}`);
