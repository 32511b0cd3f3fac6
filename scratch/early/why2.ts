// The stamper's found run (failures-in-seconds, seed 1): where each early-stop mode stops it, and its CPU.
import { check } from '../../src/check.js';
import { simulate } from '../../src/simulate.js';
import { defineController } from '../../src/runtime/define-controller.js';
import { noHotLoop } from '../../properties/no-hot-loop.js';
import { convergence } from '../../properties/convergence.js';
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
const props = [noHotLoop(), convergence()];
const r = await check(stamper, { objects: { kind: 'Site', spec: [{ v: 1 }] }, runs: 20, seed: 1, properties: props, shrink: false });
if (r.ok) throw new Error('passed');
const s = r.originalScenario!;
for (const mode of [true, 'certain', false] as const) {
  const c0 = process.cpuUsage();
  const { run } = await simulate(s, { controllers: [stamper], properties: props, earlyStop: mode });
  const c = process.cpuUsage(c0);
  console.log(String(mode), 'end', run.timing.end, 'stop', JSON.stringify(run.timing.stoppedEarly), 'writes', run.writes.length, 'cpu ms', Math.round((c.user + c.system) / 1000));
}
if (process.argv[2]) {
  const { run } = await simulate(s, { controllers: [stamper], properties: props, earlyStop: false });
  for (const e of run.trace.filter((e) => e.type === 'store:write' && e.t > 28000 && e['key'] === 'default/site-0').slice(0, 40)) console.log(e.t, e['actor'], e['key'], JSON.stringify(e['changed']), e['noop'], e['error']);
}
if (process.argv[3]) {
  const { run } = await simulate(s, { controllers: [stamper], properties: props, earlyStop: false });
  const stamped = new Set(run.stamped);
  let w = -1;
  const counts = new Map<string, number>();
  for (const e of run.trace) {
    if (e.type === 'store:write') w++;
    if (e.t < 31000 || e.t > 41000) continue;
    const k = e.type === 'store:write' ? `write ${String(e['actor'])} ${String(e['key'])} stamped=${stamped.has(w)} noop=${String(e['noop'])} err=${String(e['error'] !== undefined)}` : e.type;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  console.log(counts);
}
if (process.argv[4]) {
  const { StampScan } = await import('../../properties/no-hot-loop.js');
  const { run } = await simulate(s, { controllers: [stamper], properties: props, earlyStop: false });
  const scan = new StampScan(new Set(), 1000);
  console.log('judge-scan', scan.scan(run.trace, run.stamped ?? []), scan.longest, 'stamped', run.stamped?.length);
  console.log('verdict', JSON.stringify(props[0]!.judge(run)).slice(0, 400));
}
