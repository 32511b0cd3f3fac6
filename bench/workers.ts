import { fileURLToPath } from 'node:url';
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
    runs: 3000,
    properties: ['convergence', 'idempotence', 'no-hot-loop'],
  };
  const time = async (workers: number): Promise<{ ms: number; runs: number; ok: boolean }> => {
    const t0 = performance.now();
    const r = await runCheckInWorkers(job, { workers, watchdogMs: 60_000 });
    return { ms: performance.now() - t0, runs: r.runs, ok: r.ok };
  };
  await time(2); // warm the disk cache and tsx's transform cache
  const one = await time(1);
  const two = await time(2);
  const note = one.ok && two.ok && one.runs === two.runs ? '' : ` (runs ${one.runs} vs ${two.runs}; ok ${one.ok}/${two.ok})`;
  return [
    { name: `check in 1 worker thread: ${one.runs} scenarios${note}`, value: (1000 * one.runs) / one.ms, unit: '/s' },
    { name: `check in 2 worker threads: ${two.runs} scenarios`, value: (1000 * two.runs) / two.ms, unit: '/s' },
    { name: '--workers 2 vs 1 throughput', value: one.ms / two.ms, unit: '×', target: '≥ 1.6×' },
  ];
}
