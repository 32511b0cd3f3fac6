// CPU, simulations and the found run of failures-in-seconds' stamper checks: `5` ("report's timelines") or `20 conv` ("a hot loop is found and shrunk").
import { check } from '../../src/check.js';
import { defineController } from '../../src/runtime/define-controller.js';
import { noHotLoop } from '../../properties/no-hot-loop.js';
import { convergence } from '../../properties/convergence.js';
import { virtualTimestamp } from '../../src/store/object.js';
import type { Scenario } from '../../src/harness/scenario.js';
const stamper = defineController({
  name: 'stamper',
  for: 'Site',
  async reconcile(ctx) {
    const site = await ctx.client.tryGet<{ v: number }, { observedGeneration?: number; lastSyncTime?: string }>('Site', ctx.key);
    if (!site) return;
    await ctx.client.updateStatus({ ...site, status: { observedGeneration: site.metadata.generation, lastSyncTime: virtualTimestamp(ctx.clock.now()) } });
  },
});
const runs = Number(process.argv[2] ?? 5);
const c0 = process.cpuUsage();
let sims = 0;
const r = await check(stamper, { objects: { kind: 'Site', spec: [{ v: 1 }] }, runs, seed: 1, properties: process.argv[3] === 'conv' ? [noHotLoop(), convergence()] : [noHotLoop()], onSimulation: (_s: Scenario) => void sims++ });
const c = process.cpuUsage(c0);
console.log('cpu ms', Math.round((c.user + c.system) / 1000), 'sims', sims, r.ok ? 'ok' : `${r.property} at ${r.failedAtRun} shrinks ${r.shrinks} ${r.summary.slice(0, 120)} end ${r.run.timing.end} ${JSON.stringify(r.run.timing.stoppedEarly)}`);
