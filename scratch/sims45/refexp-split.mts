import { runTrials, levelEveryTick, edgeOnTicks } from '../../examples/replicas/experiment.js';
import { simulate } from '../../src/index.js';
import { experimentScenario } from '../../examples/replicas/experiment.js';
await runTrials(levelEveryTick, { trials: 200 }); await runTrials(edgeOnTicks, { trials: 200 });
for (const def of [levelEveryTick, edgeOnTicks]) {
  const c0 = process.cpuUsage();
  await runTrials(def, { trials: 2000 });
  const c = process.cpuUsage(c0);
  const { run } = await simulate(experimentScenario(def.name, 5, { trials: 1, target: 3, ticks: 60, lossRate: 0.3, seed: 1 }), { controllers: [def], traceReads: false, tailMs: 0 });
  const types = new Map(); for (const e of run.trace) types.set(e.type, (types.get(e.type) ?? 0) + 1);
  console.log(def.name, 'cpu ms', ((c.user + c.system) / 1000).toFixed(0), 'trace', run.trace.length, JSON.stringify([...types]));
}
