import { fileURLToPath } from 'node:url';
import { runCheckInWorkers } from '../src/cli/worker-pool.js';
const w = Number(process.argv[2]); const runs = Number(process.argv[3]);
const job = { module: fileURLToPath(new URL('../bench/workers-target.ts', import.meta.url)), exportName: 'levelTriggered', seed: 7, runs, properties: ['convergence', 'idempotence', 'no-hot-loop'] };
const c0 = process.cpuUsage(); const t0 = performance.now();
const r = await runCheckInWorkers(job, { workers: w, watchdogMs: 60000 });
const c = process.cpuUsage(c0);
console.log('workers', w, 'runs', r.runs, Math.round(performance.now() - t0), 'ms wall', Math.round((c.user + c.system) / 1000), 'ms cpu');
