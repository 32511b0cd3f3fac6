import { runTrials, edgeOnTicks } from '../../examples/replicas/experiment.js';
await runTrials(edgeOnTicks, { trials: 500 });
const c0 = process.cpuUsage();
await runTrials(edgeOnTicks, { trials: 10000 });
const c = process.cpuUsage(c0);
console.log('per trial us', ((c.user + c.system) / 10000).toFixed(1));
