import { runCheckOn } from '../src/cli/check-job.js';
import { levelTriggered } from '../examples/replicas/level-triggered.js';
import { checkOptions } from '../bench/workers-target.js';
const job = { module: '', exportName: 'levelTriggered', seed: 1, runs: 2000, properties: ['convergence', 'idempotence', 'no-hot-loop'] };
await runCheckOn(levelTriggered, { ...job, runs: 200 }, checkOptions, {});
for (const shard of [undefined, { index: 0, count: 2 }, { index: 0, count: 2000 }]) {
  const t = performance.now();
  const r = await runCheckOn(levelTriggered, { ...job, ...(shard ? { shard } : {}) }, checkOptions, {});
  console.log(JSON.stringify(shard), r.ok, r.runs, Math.round(performance.now() - t), 'ms');
}
