// The fixed cost of one simulation of the reference experiment (its scenario with no ticks):
// CPU µs per simulation over argv[2] simulations (default 3,000).
import { simulate } from '../../src/index.js';
import { experimentScenario, levelEveryTick } from '../../examples/replicas/experiment.js';
const n = Number(process.argv[2] ?? 3000);
const ticks = Number(process.argv[3] ?? 0);
const o = { trials: 1, target: 3, ticks, lossRate: 0.3, seed: 1 };
for (let i = 0; i < 300; i++) await simulate(experimentScenario(levelEveryTick.name, 1 + i, o), { controllers: [levelEveryTick], traceReads: false, tailMs: 0 });
const c0 = process.cpuUsage();
for (let i = 0; i < n; i++) await simulate(experimentScenario(levelEveryTick.name, 1 + i, o), { controllers: [levelEveryTick], traceReads: false, tailMs: 0 });
const c = process.cpuUsage(c0);
console.log('fixed', 'µs per simulation', ((c.user + c.system) / n).toFixed(0), 'ticks', ticks);
