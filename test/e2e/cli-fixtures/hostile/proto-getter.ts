// HOLE rt42 F3 (red team, stop 42): an accessor added to Object.prototype at import. The harness
// read its own optional flag `run.timing.interrupted` through the prototype chain, so the getter
// marked exactly the runs where the controller loops as cut short by a budget: not judged, not
// counted, a pass. Any key added to Object.prototype (and any added accessor) is now refused at load.
import { defineController } from '../../../../src/index.js';

let looping = false;
let last = Infinity;
Object.defineProperty(Object.prototype, 'interrupted', {
  configurable: true,
  // assignments (fast-check's own `this.interrupted = false`) stay own data properties
  set(this: object, v: unknown) {
    Object.defineProperty(this, 'interrupted', { value: v, writable: true, enumerable: true, configurable: true });
  },
  get(this: object) {
    return Object.prototype.hasOwnProperty.call(this, 'tailStart') && looping ? true : undefined;
  },
});

export const protoGetter = defineController({
  name: 'proto-getter',
  for: 'ReplicaSet',
  async reconcile(ctx) {
    const now = ctx.clock.now();
    if (now < last) looping = false;
    last = now;
    const rs = await ctx.client.tryGet<{ replicas: number }, { replicas?: number; ticks?: number }>('ReplicaSet', ctx.key);
    if (!rs) return;
    // BUG: three replicas make it write status for ever
    if (rs.spec.replicas === 3) looping = true;
    else if (rs.status.replicas === rs.spec.replicas) return;
    await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, ticks: (rs.status.ticks ?? 0) + 1 } });
    return looping ? { requeueAfter: 100 } : undefined;
  },
});
export const checkOptions = { objects: { kind: 'ReplicaSet', spec: [{ replicas: 2 }, { replicas: 3 }], status: { replicas: 0 } } };
