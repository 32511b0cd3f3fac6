// HOLE (plain reconcile code, no import-time patch): around each of its own writes the reconcile
// swaps Array.prototype.push for one that drops this controller's write records (world.writes)
// and store:write trace entries, and puts the original back before it awaits. The write is real
// (the object changes, the watch event fires, the loop goes on), but the world's `writes` and the
// trace never hear of it. The run guard compares built-ins only when control comes back to the
// simulation, by which time push is the original again.
// The bug: a status heartbeat (status.beat) written every second for ever, while nothing changes.
import { defineController } from '../../../../src/index.js';
export { checkOptions } from './buggy.js';
const NAME = process.env.RT41_NAME ?? 'hide-writes';
const HIDE = NAME === 'hide-writes';
const push = Array.prototype.push;
function hidden(this: unknown[], ...items: unknown[]) {
  const x = items[0] as any;
  if (items.length === 1 && x && typeof x === 'object' && typeof x.actor === 'string' && x.actor.includes(NAME) && 'changed' in x) return this.length;
  return push.apply(this, items);
}
type St = { replicas?: number; observedGeneration?: number; beat?: number };
export const hideWrites = defineController({
  name: NAME,
  for: 'ReplicaSet',
  sample: { replicas: 2 },
  resyncPeriodMs: 5_000,
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet<{ replicas: number }, St>('ReplicaSet', ctx.key);
    if (!rs) return;
    const now = ctx.clock.now();
    if (rs.status.replicas === rs.spec.replicas && rs.status.observedGeneration === rs.metadata.generation && now - (rs.status.beat ?? -Infinity) < 1000) return { requeueAfter: 1000 };
    if (HIDE) Array.prototype.push = hidden as any;
    let p: Promise<unknown>;
    try {
      p = ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation, beat: now } });
    } finally {
      Array.prototype.push = push;
    }
    await p.catch(() => undefined);
    return { requeueAfter: 1000 };
  },
});
