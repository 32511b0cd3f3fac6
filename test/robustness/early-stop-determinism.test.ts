import { describe, expect, it } from 'vitest';
import { check, checkSystematic, defineController } from '../../src/index.js';

/**
 * An early stop is a prediction, confirmed by running the minimal scenario to its end. When the
 * confirmation does not fail, the check used to start again with early stops off, and never asked
 * whether the scenario runs the same twice: a controller that hot-loops only in its first
 * simulations of the process (module-level state: a warm-up flag, a "synced once" boolean)
 * passed (red team N4, stop 41). It now fails `determinism`; an honest disproved prediction still
 * starts again.
 */
function firstSimulations(k: number) {
  let sims = 0;
  let last = Infinity;
  return defineController({
    name: 'first-sims',
    for: 'ReplicaSet',
    sample: { replicas: 2 },
    resyncPeriodMs: 5_000,
    async reconcile(ctx) {
      // a new simulation: the virtual clock starts again
      const now = ctx.clock.now();
      if (now < last) sims++;
      last = now;
      const rs = await ctx.client.tryGet<{ replicas: number }, { replicas?: number; observedGeneration?: number; ticks?: number }>('ReplicaSet', ctx.key);
      if (!rs) return;
      if (sims <= k) {
        await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation, ticks: (rs.status.ticks ?? 0) + 1 } });
        return { requeueAfter: 100 };
      }
      if (rs.status.replicas === rs.spec.replicas && rs.status.observedGeneration === rs.metadata.generation) return;
      await ctx.client.updateStatus({ ...rs, status: { ...rs.status, replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation } });
      return undefined;
    },
  });
}
const objects = { kind: 'ReplicaSet', spec: [{ replicas: 2 }], status: { replicas: 0 } };

describe('a disproved early stop is judged for determinism before the check starts again (red team N4)', () => {
  it('check: a controller that hot-loops only in its first 3 simulations fails determinism, not a pass', async () => {
    const r = await check(firstSimulations(3), { objects, runs: 10, seed: 1 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.property).toBe('determinism');
    expect(r.summary).toMatch(/had failed "no-hot-loop"/);
  });

  it('systematic: the same controller fails determinism too', async () => {
    const r = await checkSystematic(firstSimulations(3), { objects, maxPlans: 30, depth: 1 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.property).toBe('determinism');
  });

  it('stays quiet on the same controller once warm (it never misbehaves in this process)', async () => {
    const r = await check(firstSimulations(0), { objects, runs: 10, seed: 1 });
    expect(r.ok, r.ok ? '' : r.summary).toBe(true);
  });
});
