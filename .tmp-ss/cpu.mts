import { runCheckOn } from '../src/cli/check-job.js';
import { levelTriggered } from '../examples/replicas/level-triggered.js';
import { checkOptions } from '../bench/workers-target.js';
const job = { module: '', exportName: 'levelTriggered', seed: 7, runs: 3000, properties: ['convergence', 'idempotence', 'no-hot-loop'] };
await runCheckOn(levelTriggered, { ...job, runs: 300 }, checkOptions, {});
const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
for (const shard of [undefined, { index: 0, count: 2 }, { index: 1, count: 2 }, undefined]) {
  const c0 = cpu(); const t0 = performance.now();
  let sims = 0;
  const r = await runCheckOn(levelTriggered, { ...job, ...(shard ? { shard } : {}) }, checkOptions, { onSimulation: () => sims++ });
  console.log(JSON.stringify(shard ?? 'full'), r.runs, 'sims', sims, Math.round(cpu() - c0), 'ms cpu', Math.round(performance.now() - t0), 'ms wall');
}
