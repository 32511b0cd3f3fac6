// npx tsx scratch/rt48/growing-loop.ts [grow|replace] : a hot loop whose every write grows the object (status history appended on each reconcile)
import { check, defineController } from '../../src/index.js';
const growing = defineController({
  name: 'history-appender',
  for: 'Job2',
  async reconcile(ctx) {
    const o = await ctx.client.get<{ n: number }, { history?: string[]; observedGeneration?: number }>('Job2', ctx.key);
    // BUG: appends a line on every pass (a "last synced" log kept in status), and the write brings the next pass
    const mode = process.argv[2] ?? 'grow';
    const history = mode === 'grow' ? [...(o.status.history ?? []), `synced generation ${o.metadata.generation} at ${ctx.clock.now()}`] : [`synced generation ${o.metadata.generation} at ${ctx.clock.now()}`];
    await ctx.client.updateStatus({ ...o, status: { history, observedGeneration: o.metadata.generation } });
  },
});
const t0 = performance.now();
const c0 = process.cpuUsage();
const r = await check(growing, { objects: { kind: 'Job2', spec: [{ n: 1 }, { n: 2 }] }, runs: Number(process.argv[3] ?? 20), seed: 1, ...(process.argv[4] === 'noshrink' ? { shrink: false } : {}) });
const cu = process.cpuUsage(c0);
console.log(r.ok ? 'PASS' : `FAIL ${r.property} at run ${r.failedAtRun} (${r.summary.slice(0, 160)})`, 'wall', Math.round(performance.now() - t0), 'ms cpu', Math.round((cu.user + cu.system) / 1000), 'ms');
