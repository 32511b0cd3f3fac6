// CPU of failures-in-seconds' hot-loop check (run at the base worktree and here)
import { check, defineController, properties } from '../../src/index.js';
import { virtualTimestamp } from '../../src/store/object.js';
const stamper = defineController({
  name: 'stamper',
  for: 'Site',
  async reconcile(ctx) {
    const site = await ctx.client.tryGet<{ v: number }, { observedGeneration?: number; lastSyncTime?: string }>('Site', ctx.key);
    if (!site) return;
    await ctx.client.updateStatus({ ...site, status: { observedGeneration: site.metadata.generation, lastSyncTime: virtualTimestamp(ctx.clock.now()) } });
  },
});
let sims = 0;
const cpu = () => Math.round((process.cpuUsage().user + process.cpuUsage().system) / 1000);
const c0 = cpu();
const r = await check(stamper, { objects: { kind: 'Site', spec: [{ v: 1 }] }, runs: 20, seed: 1, properties: [properties.noHotLoop(), properties.convergence()], onSimulation: () => void sims++ } as never);
console.log('cpu ms', cpu() - c0, 'sims', sims, r.ok ? 'PASS' : `${r.property} shrinks ${r.shrinks} ${r.summary.slice(0, 80)}`);
