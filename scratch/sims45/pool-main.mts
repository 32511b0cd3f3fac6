import { fileURLToPath } from 'node:url';
import { runCheckInWorkers } from '../../src/cli/worker-pool.js';
const job = { module: fileURLToPath(new URL('../../bench/workers-target.ts', import.meta.url)), exportName: 'levelTriggered', seed: 7, runs: Number(process.argv[2] ?? 1000), properties: ['convergence', 'idempotence', 'no-hot-loop'] };
const workers = Number(process.argv[3] ?? 2);
const e0 = performance.eventLoopUtilization(); const c0 = process.cpuUsage(); const t0 = performance.now();
const { result } = await runCheckInWorkers(job as never, { workers, watchdogMs: 60_000 });
const e = performance.eventLoopUtilization(e0); const c = process.cpuUsage(c0); const ms = performance.now() - t0;
console.log(`workers ${workers} runs ${result.runs} wall ${ms.toFixed(0)} ms, process cpu ${((c.user + c.system) / 1000).toFixed(0)} ms, main thread busy ${e.active.toFixed(0)} ms`);
