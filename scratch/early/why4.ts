import { check } from '../../src/check.js';
import { simulate } from '../../src/simulate.js';
import { defineController } from '../../src/runtime/define-controller.js';
import { noHotLoop } from '../../properties/no-hot-loop.js';
import { virtualTimestamp } from '../../src/store/object.js';
import type { Property } from '../../src/harness/property.js';
const stamper = defineController({
  name: 'stamper',
  for: 'Site',
  async reconcile(ctx) {
    const site = await ctx.client.tryGet<{ v: number }, { observedGeneration?: number; lastSyncTime?: string }>('Site', ctx.key);
    if (!site) return;
    await ctx.client.updateStatus({ ...site, status: { observedGeneration: site.metadata.generation, lastSyncTime: virtualTimestamp(ctx.clock.now()) } });
  },
});
const props = [noHotLoop()];
const r = await check(stamper, { objects: { kind: 'Site', spec: [{ v: 1 }] }, runs: 20, seed: 1, properties: props, shrink: false });
if (r.ok) throw new Error('passed');
const s = r.originalScenario!;
let index = 0, writeIndex = 0, stampedIndex = 0, shown = 0;
const wrapped: Property = { ...props[0]!, monitor: () => ({ afterWrite: (live) => {
  const trace = live.trace, stamped = live.stamped ?? [];
  for (; index < trace.length; index++) {
    const e = trace[index]!;
    if (e.type !== 'store:write') continue;
    const w = writeIndex++;
    while (stampedIndex < stamped.length && stamped[stampedIndex]! < w) stampedIndex++;
    if (stamped[stampedIndex] !== w && e.t > 31000 && shown++ < 6) console.log('not stamped', e.t, w, stampedIndex, stamped[stampedIndex], stamped.length, e['key'], JSON.stringify(e['changed']), stamped.slice(-3));
  }
  return undefined;
} }) };
await simulate(s, { controllers: [stamper], properties: [wrapped], earlyStop: 'certain' });
{
  const { run } = await simulate(s, { controllers: [stamper], properties: props, earlyStop: true });
  const tw = run.trace.filter((e) => e.type === 'store:write');
  console.log('trace writes', tw.length, 'writes', run.writes.length);
  for (let i = 0; i < tw.length; i++) {
    const a = tw[i]!, b = run.writes[i];
    if (!b || a.t !== b.t || a['key'] !== b.key || a['actor'] !== b.actor) { console.log('mismatch at', i, JSON.stringify(a).slice(0, 300), '\n vs', JSON.stringify(b).slice(0, 300)); break; }
  }
}
