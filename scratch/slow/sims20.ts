// npx tsx scratch/slow/sims20.ts <case> <runs> <seed> [big]: a check (no shrinking); every simulation of the last run logged with the CPU spent so far
import { check } from '../../src/index.js';
import { cases } from './fixtures/controllers.js';
const [name, runs, seed, big] = process.argv.slice(2);
const c = cases.find((x) => x.name === name)!;
const cpu = () => Math.round((process.cpuUsage().user + process.cpuUsage().system) / 1000);
let n = 0;
const r = await check(c.controllers, { ...c.options, ...(big ? { maxObjects: 4, maxActions: 8 } : {}), runs: Number(runs), seed: Number(seed), shrink: false,
  onSimulation: (s: { faults: { events: unknown[]; background: unknown[] }; workload: unknown[] }, i: number | undefined) => { n++; if (i === undefined || i >= Number(runs) - 1) console.log('sim', n, 'run', i, 'cpu', cpu(), 'faults', s.faults.events.length + s.faults.background.length, 'actions', s.workload.length); },
  onProgress: (p: { runs: number; failures: number; phase: string }) => console.log('progress', p.runs, p.failures, p.phase, 'cpu', cpu()) } as never);
console.log('cpu ms', cpu(), 'sims', n, r.ok ? 'PASS' : `FAIL at run ${r.failedAtRun} ${r.property}: ${r.summary}`);
if (!r.ok) console.log(r.explanation.slice(0, 3000));
