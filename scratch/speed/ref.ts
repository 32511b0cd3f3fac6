import { runReferenceExperiment } from '../../examples/replicas/experiment.js';
await runReferenceExperiment({ trials: 100 });
const c0 = process.cpuUsage();
await runReferenceExperiment({ trials: Number(process.argv[2] ?? 2000) });
const c = process.cpuUsage(c0);
console.log(`reference experiment cpu ${((c.user + c.system) / 1000).toFixed(0)} ms`);
