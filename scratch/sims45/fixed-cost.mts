import { experimentScenario, edgeOnTicks } from '../../examples/replicas/experiment.js';
import { validateScenario, simulate } from '../../src/simulate.js';
import { simulate as hsim } from '../../src/harness/simulate.js';
import { createWorld } from '../../src/harness/world.js';
import { resolveScenarioOptions } from '../../src/harness/scenario.js';
import { guardRun } from '../../src/host/run-guard.js';
import { defaultFaults, defaultEnvironment } from '../../src/defaults.js';
const o = { trials: 1, target: 3, ticks: 60, lossRate: 0.3, seed: 1 };
const N = 4000;
async function t(name: string, f: (i: number) => unknown) {
  for (let i = 0; i < 300; i++) await f(i);
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i++) await f(i);
  const c = process.cpuUsage(c0);
  console.log(name.padEnd(30), ((c.user + c.system) / N).toFixed(1), 'us');
}
for (let rep = 0; rep < 2; rep++) {
await t('experimentScenario', (i) => experimentScenario('edge-triggered', i, o));
await t('validateScenario', (i) => validateScenario(experimentScenario('edge-triggered', i, o)));
await t('createWorld', (i) => { const s = experimentScenario('edge-triggered', i, o); return createWorld(s, resolveScenarioOptions(s.options), false, undefined, {}); });
await t('guardRun(empty)', () => guardRun(() => 0, async () => 1, { hosted: false }));
await t('harness simulate', (i) => hsim(experimentScenario('edge-triggered', i, o), { controllers: [edgeOnTicks], faults: defaultFaults(), environment: defaultEnvironment(), traceReads: false, tailMs: 0 }));
await t('public simulate', (i) => simulate(experimentScenario('edge-triggered', i, o), { controllers: [edgeOnTicks], traceReads: false, tailMs: 0 }));
}
