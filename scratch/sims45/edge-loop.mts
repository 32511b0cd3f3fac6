import { experimentScenario, edgeOnTicks } from '../../examples/replicas/experiment.js';
import { simulate as hsim } from '../../src/harness/simulate.js';
import { defaultFaults, defaultEnvironment } from '../../src/defaults.js';
const o = { trials: 1, target: 3, ticks: 60, lossRate: 0.3, seed: 1 };
const opts = { controllers: [edgeOnTicks], faults: defaultFaults(), environment: defaultEnvironment(), traceReads: false, tailMs: 0 };
for (let i = 0; i < 1000; i++) await hsim(experimentScenario('edge-triggered', i, o), opts);
const c0 = process.cpuUsage();
for (let i = 0; i < 20000; i++) await hsim(experimentScenario('edge-triggered', i, o), opts);
const c = process.cpuUsage(c0); console.log('us/trial', ((c.user + c.system) / 20000).toFixed(1));
