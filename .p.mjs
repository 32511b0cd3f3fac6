import { runReferenceExperiment } from './dist/examples/replicas/experiment.js';
const t0 = performance.now();
await runReferenceExperiment({ trials: 8000 });
const u = process.cpuUsage();
console.log(Math.round(performance.now() - t0), 'ms wall; cpu', Math.round((u.user + u.system) / 1000), 'ms');
