import { describe, expect, it } from 'vitest';
import { check } from '../../src/check.js';
import { defineController } from '../../src/runtime/define-controller.js';
import type { ReconcileContext } from '../../src/runtime/reconcile.js';
import { noHotLoop, idempotence, convergence } from '../../properties/index.js';

/**
 * Red team, stop 43 (H2): a real client sends `JSON.stringify(object)`, so a Date, a class
 * instance (client-node's `V1PodSpec`) or an object with `toJSON` reaches the apiserver as JSON,
 * and an honest controller using them works in production. The in-process client refused them as
 * Invalid, and no-hot-loop failed correct controllers. Now they arrive as the wire would carry
 * them, and what the controller reads back is that JSON (so comparing a Date with it is the bug it
 * is in production).
 */
type Spec = { replicas: number };
type Status = { replicas?: number; observedGeneration?: number; lastChange?: unknown };
type Rs = { spec: Spec; status: Status; metadata: { generation: number; name: string; namespace: string } };

class RsStatus {
  constructor(
    public replicas: number,
    public observedGeneration: number,
  ) {}
}

function honest(name: string, status: (ctx: ReconcileContext, rs: Rs) => unknown, needs = (rs: Rs) => rs.status.replicas !== rs.spec.replicas || rs.status.observedGeneration !== rs.metadata.generation) {
  return defineController({
    name,
    for: 'ReplicaSet',
    resyncPeriodMs: 10_000,
    async reconcile(ctx) {
      const rs = (await ctx.client.tryGet<Spec, Status>('ReplicaSet', ctx.key)) as Rs | undefined;
      if (!rs || !needs(rs)) return;
      await ctx.client.updateStatus({ ...rs, status: status(ctx, rs) } as never);
    },
  });
}

const options = { objects: { kind: 'ReplicaSet', spec: [{ replicas: 2 }, { replicas: 3 }] }, runs: 8, seed: 3, properties: [noHotLoop(), idempotence(), convergence()] };

describe('what a controller writes reaches the store as the wire carries it', () => {
  const cases = [
    honest('date-status', (ctx, rs) => ({ replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation, lastChange: new Date(ctx.clock.now()) })),
    honest('class-status', (_ctx, rs) => new RsStatus(rs.spec.replicas, rs.metadata.generation)),
    honest('tojson-status', (_ctx, rs) => ({ toJSON: () => ({ replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation }) })),
  ];
  for (const c of cases) {
    it(`${c.name}: a correct controller passes`, async () => {
      const r = await check(c, options);
      expect(r.ok ? 'passed' : `${r.property}: ${r.summary}`).toBe('passed');
    });
  }

  it('a Date is stored as its ISO string: comparing the Date read back with a new one is caught, as it loops in production', async () => {
    // buggy twin: "changed" whenever the stored lastChange is not this Date, which a string never is
    const buggy = honest('date-compare', (ctx, rs) => ({ replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation, lastChange: new Date(ctx.clock.now() - (ctx.clock.now() % 60_000)) }), (rs) => !(rs.status.lastChange instanceof Date));
    const r = await check(buggy, options);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(['no-hot-loop', 'idempotence']).toContain(r.property);
      const write = r.run.trace.find((e) => e.type === 'store:write' && e['verb'] === 'updateStatus' && e['error'] === undefined);
      expect(write).toBeDefined();
      const stored = r.run.finalObjects.find((o) => o.kind === 'ReplicaSet')?.status as Status | undefined;
      expect(stored?.lastChange).toMatch(/^\d{4}-\d\d-\d\dT/);
    }
  });

  it('what JSON cannot send (a bigint) fails the reconcile with a message saying so, as the real client does', async () => {
    const bigint = honest('bigint-status', (_ctx, rs) => ({ replicas: BigInt(rs.spec.replicas) }));
    const r = await check(bigint, { ...options, runs: 1, shrink: false });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(JSON.stringify(r.run.trace)).toMatch(/updateStatus ReplicaSet cannot be sent to the API server: JSON\.stringify threw/);
  });
});
