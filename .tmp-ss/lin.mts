import { runCheckOn } from '../src/cli/check-job.js';
import { levelTriggered } from '../examples/replicas/level-triggered.js';
import { checkOptions } from '../bench/workers-target.js';
const job = { module: '', exportName: 'levelTriggered', seed: 1, runs: 2000, properties: ['convergence', 'idempotence', 'no-hot-loop'] };
await runCheckOn(levelTriggered, { ...job, runs: 200 }, checkOptions, {});
for (const runs of [1000, 2000, 1000]) {
  let last = performance.now(); const t = last; const marks: number[] = [];
  const r = await runCheckOn(levelTriggered, { ...job, runs }, checkOptions, { onProgress: (p) => { if (p.runs % 250 === 0) { const n = performance.now(); marks.push(Math.round(n - last)); last = n; } } });
  console.log(runs, r.ok, r.runs, Math.round(performance.now() - t), 'ms', marks.join(' '), Math.round(process.memoryUsage().heapUsed / 1e6), 'MB');
}
