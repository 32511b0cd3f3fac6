import { describe, expect, it } from 'vitest';
import { check } from '../../src/check.js';
import { simulate } from '../../src/simulate.js';
import { defineController } from '../../src/runtime/define-controller.js';
import type { Scenario } from '../../src/harness/scenario.js';

/**
 * Red team, stop 43 (H2b): a reconcile that yields to the event loop with
 * `await new Promise((r) => setTimeout(r, 0))` was called blocked on the world outside when the
 * kernel's few macrotasks ran out before the 1 ms timer fired, and "determinism" failed as the
 * machine's load decided. A short real timer is now waited for; a long one is still a wait on the
 * world outside.
 */
function yielding(name: string, ms: number) {
  return defineController({
    name,
    for: 'ReplicaSet',
    resyncPeriodMs: 10_000,
    async reconcile(ctx) {
      const rs = await ctx.client.tryGet<{ replicas: number }, { replicas?: number; observedGeneration?: number }>('ReplicaSet', ctx.key);
      if (!rs || (rs.status.replicas === rs.spec.replicas && rs.status.observedGeneration === rs.metadata.generation)) return;
      await new Promise((r) => setTimeout(r, ms));
      await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation } });
    },
  });
}

const scenario: Scenario = {
  seed: 1,
  controllers: [{ name: 'yield' }],
  initialObjects: [],
  workload: [{ at: 0, type: 'create', object: { kind: 'ReplicaSet', metadata: { name: 'a', namespace: 'default' }, spec: { replicas: 2 } } }],
  faults: { events: [], background: [] },
  options: { faultWindowMs: 2000, settleMs: 2000 },
};

describe('a reconcile that waits on a real timer', () => {
  it('of 0 ms (a yield) resumes every time: the check passes and no task is called blocked', async () => {
    for (let i = 0; i < 5; i++) {
      const { run } = await simulate(scenario, { controllers: [yielding('yield', 0)] });
      expect(run.trace.filter((e) => e.type === 'kernel:blocked')).toEqual([]);
      expect(run.writes.some((w) => w.verb === 'updateStatus' && w.error === undefined)).toBe(true);
    }
    const r = await check(yielding('yield', 0), { objects: { kind: 'ReplicaSet', spec: [{ replicas: 2 }, { replicas: 3 }] }, runs: 5, seed: 1 });
    expect(r.ok ? 'passed' : `${r.property}: ${r.summary}`).toBe('passed');
  });

  it('of 2 s is still a wait on the world outside: the task is called blocked', async () => {
    const { run } = await simulate(scenario, { controllers: [yielding('yield', 2000)] });
    expect(run.trace.some((e) => e.type === 'kernel:blocked')).toBe(true);
  });
});
