import { defineController, simulate } from "./dist-new/src/index.js";
const hot = defineController({
  name: "hot",
  for: "Thing",
  async reconcile(ctx) {
    const t = await ctx.client.tryGet("Thing", ctx.key);
    if (!t) return;
    await ctx.client.updateStatus({ ...t, status: { n: ctx.clock.now() } });
  }
});
function hotScenario(ms2) {
  return { seed: 1, controllers: [{ name: "hot" }], initialObjects: [], workload: [{ at: 0, type: "create", object: { kind: "Thing", metadata: { name: "t", namespace: "default" }, spec: { i: 1 } } }], faults: { events: [], background: [] }, options: { faultWindowMs: ms2, settleMs: 0 } };
}
await simulate(hotScenario(2e3), { controllers: [hot] });
const c0 = process.cpuUsage();
const r = await simulate(hotScenario(Number(process.argv[2] ?? 7e4)), { controllers: [hot] });
const c = process.cpuUsage(c0);
const ms = (c.user + c.system) / 1e3;
console.log(`writes ${r.run.writes.length} cpu ${ms.toFixed(0)} ms -> ${(1e3 * r.run.writes.length / ms).toFixed(0)} writes/s`);
