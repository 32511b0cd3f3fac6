import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { runCheckInWorkers } from '../src/cli/worker-pool.js';
import type { CheckJob } from '../src/cli/check-job.js';
import type { BenchRow } from './types.js';

/**
 * `--workers 2` vs one worker (SPEC §10: ≥ 1.6× on this 2-core machine): the same check, both
 * times in worker threads (so both pay for starting threads and loading the module), timed on
 * the wall clock from the first thread's start to the merged result.
 */
export async function benchWorkers(): Promise<BenchRow[]> {
  const job: CheckJob = {
    module: fileURLToPath(new URL('./workers-target.ts', import.meta.url)),
    exportName: 'levelTriggered',
    seed: 7,
    // enough runs that starting a thread (tsx, module graph, a cold JIT: ~0.5 s of CPU each) is amortized
    runs: 6000,
    properties: ['convergence', 'idempotence', 'no-hot-loop'],
  };
  const time = async (workers: number, runs = job.runs): Promise<{ ms: number; runs: number; ok: boolean }> => {
    const t0 = performance.now();
    const r = await runCheckInWorkers({ ...job, ...(runs !== undefined ? { runs } : {}) }, { workers, watchdogMs: 60_000 });
    return { ms: performance.now() - t0, runs: r.runs, ok: r.ok };
  };
  await time(2, 50); // warm the disk cache and tsx's transform cache
  const one = await time(1);
  const two = await time(2);
  const note = one.ok && two.ok && one.runs === two.runs ? '' : ` (runs ${one.runs} vs ${two.runs}; ok ${one.ok}/${two.ok})`;
  const ideal = await calibrate();
  return [
    { name: 'calibration: 2 vs 1 threads of a pure CPU loop, now', value: ideal, unit: '×', target: '≈ 2 on an idle 2-core machine' },
    { name: `check in 1 worker thread: ${one.runs} scenarios${note}`, value: (1000 * one.runs) / one.ms, unit: '/s' },
    { name: `check in 2 worker threads: ${two.runs} scenarios`, value: (1000 * two.runs) / two.ms, unit: '/s' },
    { name: '--workers 2 vs 1 throughput', value: one.ms / two.ms, unit: '×', target: '≥ 1.6×' },
  ];
}

/**
 * What two threads can gain on this machine right now: the same busy loop in one thread, then
 * in each of two. On a shared machine under load this is well below 2, and the ratio above
 * should be read against it.
 */
async function calibrate(): Promise<number> {
  const code = `const { parentPort } = require('node:worker_threads'); let x = 0; for (let i = 0; i < 4e8; i++) x += i % 7; parentPort.postMessage(x);`;
  const run = async (n: number): Promise<number> => {
    const t0 = performance.now();
    await Promise.all(Array.from({ length: n }, () => new Promise((resolve) => new Worker(code, { eval: true }).once('message', resolve))));
    return performance.now() - t0;
  };
  const one = await run(1);
  const two = await run(2);
  return (2 * one) / two;
}
