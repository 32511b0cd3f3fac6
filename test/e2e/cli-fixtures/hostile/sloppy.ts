// Sloppy-but-honest controllers: each has a real bug; which get a PASS?
import { defineController } from '../../../../src/index.js';
type Spec = { replicas: number };
type Status = { replicas?: number; observedGeneration?: number; ticks?: number };

// 1. typo in the kind it reads ('Replicaset'): every reconcile finds nothing and returns; the
//    objects never get a status at all.
export const typoKind = defineController({
  name: 'typo-kind',
  for: 'ReplicaSet',
  sample: { replicas: 2 },
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet<Spec, Status>('Replicaset', ctx.key);
    if (!rs) return;
    await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation } });
  },
});

// 2. one replica short and no observedGeneration: never reaches spec.replicas.
export const shortByOne = defineController({
  name: 'short-by-one',
  for: 'ReplicaSet',
  sample: { replicas: 2 },
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet<Spec, Status>('ReplicaSet', ctx.key);
    if (!rs) return;
    const want = rs.spec.replicas - 1; // BUG
    if (rs.status.replicas !== want) await ctx.client.updateStatus({ ...rs, status: { replicas: want } });
  },
});

// 3. swallows every error (a conflict leaves the status stale, nothing requeues) and reports
//    observedGeneration off by one only when... no: reports it right, but the step logic stops.
export const swallows = defineController({
  name: 'swallows',
  for: 'ReplicaSet',
  sample: { replicas: 3 },
  async reconcile(ctx) {
    try {
      const rs = await ctx.client.get<Spec, Status>('ReplicaSet', ctx.key);
      const actual = rs.status.replicas ?? 0;
      if (actual === rs.spec.replicas) return;
      const next = actual + Math.sign(rs.spec.replicas - actual);
      await ctx.client.updateStatus({ ...rs, status: { replicas: next, observedGeneration: rs.metadata.generation } });
      if (next !== rs.spec.replicas) return { requeueAfter: 1000 };
    } catch {
      // BUG: every error thrown away, no requeue
    }
    return undefined;
  },
});

// 4. registered for a kind the check never produces (the objects are ReplicaSets).
export const wrongKind = defineController({
  name: 'wrong-kind',
  for: 'Deployment',
  async reconcile(ctx) {
    const d = await ctx.client.tryGet<Spec, Status>('Deployment', ctx.key);
    if (!d) return;
    await ctx.client.updateStatus({ ...d, status: { ticks: (d.status.ticks ?? 0) + 1 } }); // hot loop
    return { requeueAfter: 100 };
  },
});

export const checkOptions = { objects: { kind: 'ReplicaSet', spec: [{ replicas: 2 }, { replicas: 3 }], status: { replicas: 0 } } };
