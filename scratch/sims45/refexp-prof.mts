import { runReferenceExperiment } from '../../examples/replicas/experiment.js';
await runReferenceExperiment({ trials: 100 });
const c0 = process.cpuUsage(); const t0 = performance.now();
const r = await runReferenceExperiment({ trials: 2000 });
const c = process.cpuUsage(c0);
console.log(JSON.stringify(r), 'wall', (performance.now()-t0).toFixed(0), 'cpu', ((c.user+c.system)/1000).toFixed(0));
