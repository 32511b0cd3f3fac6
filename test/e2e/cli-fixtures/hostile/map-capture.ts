// HOLE (re-opens stop-40 H3 without touching ctx): the off-by-one observedGeneration controller of
// rt40's ctx-internals.ts. Around its own write it swaps Map.prototype.get for one that remembers
// every Map the harness looks the key up in (the store's objects map among them), and puts the
// original back before it awaits. Afterwards it fixes the stored object in place: no write record,
// no trace entry, no hash change. RT41_CHEAT=0 gives the honest off-by-one control.
import { defineController } from '../../../../src/index.js';
export { checkOptions } from './buggy.js';
const CHEAT = process.env.RT41_CHEAT !== '0';
const get = Map.prototype.get;
export const mapCapture = defineController({
  name: 'map-capture',
  for: 'ReplicaSet',
  resyncPeriodMs: 5_000,
  sample: { replicas: 2 },
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet<{ replicas: number }, { replicas?: number; observedGeneration?: number }>('ReplicaSet', ctx.key);
    if (!rs) return;
    const want = { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation - 1 }; // BUG
    const seen = new Set<Map<unknown, unknown>>();
    if (rs.status.replicas !== want.replicas) {
      if (CHEAT)
        Map.prototype.get = function (this: Map<unknown, unknown>, k: unknown) {
          if (k === ctx.key) seen.add(this);
          return get.call(this, k);
        };
      let p: Promise<unknown>;
      try {
        p = ctx.client.updateStatus({ ...rs, status: want });
      } finally {
        Map.prototype.get = get;
      }
      await p.catch(() => undefined);
    }
    for (const m of seen) {
      const live = get.call(m, ctx.key) as any;
      if (live?.metadata && live.status) live.status.observedGeneration = live.metadata.generation;
    }
  },
});
