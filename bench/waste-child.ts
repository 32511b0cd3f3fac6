/**
 * A child of `bench/waste.ts`: runs the workers bench's check and prints how long the check
 * took (ms, wall clock), not counting the start of the process or threads. It prints `ready`
 * once loaded and starts when its stdin says `go`, so that two children run at the same time.
 *
 * - `waste <zoo|hot|ref>`: one workload of `benchWaste` in this process; prints its rows as JSON
 *   (one line, last).
 * - `process <runs>`: the check in this process.
 * - `threads <n> <runs>`: the check in each of n worker threads of this process; prints the
 *   slowest thread's time.
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { check } from '../src/check.js';
import { defaultProperties } from '../src/defaults.js';
import { checkOptions, levelTriggered } from './workers-target.js';

const properties = defaultProperties().filter((p) => ['convergence', 'idempotence', 'no-hot-loop'].includes(p.name));

async function timedCheck(runs: number): Promise<number> {
  const t0 = performance.now();
  const r = await check(levelTriggered, { ...checkOptions, properties, runs, seed: 7 });
  if (r.runs !== runs) throw new Error(`the check stopped after ${r.runs} of ${runs} runs`);
  return performance.now() - t0;
}

function waitForGo(): Promise<void> {
  return new Promise((resolve) => {
    process.stdin.once('data', () => {
      process.stdin.pause();
      resolve();
    });
  });
}

if (!isMainThread) {
  // a worker thread: ready, wait for go, run, report
  const { runs } = workerData as { runs: number };
  await timedCheck(50); // warm-up, as in a process below
  parentPort!.once('message', () => {
    void timedCheck(runs).then((ms) => parentPort!.postMessage(ms));
  });
  parentPort!.postMessage('ready');
} else {
  const [mode, a, b] = process.argv.slice(2);
  if (mode === 'waste') {
    const { WASTE_WORKLOADS, wasteRows } = await import('./waste.js');
    const w = WASTE_WORKLOADS.find((x) => x === a);
    if (w === undefined) throw new Error(`bench/waste-child.ts waste: expected one of ${WASTE_WORKLOADS.join(', ')}, got ${String(a)}`);
    console.log(JSON.stringify(await wasteRows(w)));
  } else if (mode === 'process') {
    const runs = Number(a);
    await timedCheck(50); // the same warm-up a thread gets below
    console.log('ready');
    await waitForGo();
    console.log(String(await timedCheck(runs)));
  } else {
    const n = Number(a);
    const runs = Number(b);
    const tsx = import.meta.resolve('tsx/esm/api');
    const self = import.meta.url;
    const workers = Array.from({ length: n }, () => new Worker(`import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(self)}); }).then(() => undefined);`, { eval: true, workerData: { runs } }));
    await Promise.all(workers.map((w) => new Promise((resolve) => w.once('message', resolve))));
    console.log('ready');
    await waitForGo();
    const times = await Promise.all(workers.map((w) => new Promise<number>((resolve) => { w.once('message', (ms: number) => resolve(ms)); w.postMessage('go'); })));
    for (const w of workers) void w.terminate();
    console.log(String(Math.max(...times)));
  }
}
