import { describe, expect, it } from 'vitest';
import { check } from '../../src/check.js';
import { checkDeterminism } from '../../src/harness/determinism.js';
import type { CheckFailed } from '../../src/harness/check-result.js';
import { simulate } from '../../src/harness/simulate.js';
import { defineController } from '../../src/runtime/define-controller.js';
import type { Scenario } from '../../src/harness/scenario.js';
import { REPLICAS_KIND, type ReplicasSpec } from '../../examples/replicas/replicas.js';
import { levelTriggered } from '../../examples/replicas/level-triggered.js';
import { eventLoss } from '../../faults/event-loss.js';
import { convergence } from '../../properties/convergence.js';
import { replicaObjects } from './check-fixtures.js';

/** A converging controller that also stamps a value from outside the simulation into status. */
function stamping(name: string, stamp: () => number) {
  return defineController({
    name,
    for: REPLICAS_KIND,
    async reconcile(ctx) {
      const rs = await ctx.client.tryGet<ReplicasSpec, Record<string, unknown>>(REPLICAS_KIND, ctx.key);
      if (!rs || rs.status['observedGeneration'] === rs.metadata.generation) return;
      await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation, stamp: stamp() } });
    },
  });
}

const base = { faults: [eventLoss], properties: [convergence()], objects: replicaObjects, runs: 20 };

describe('determinism self-check', () => {
  it('catches a reconciler that calls Math.random, with the first diverging entry and the cause', async () => {
    const r = (await check(stamping('random', () => Math.random()), { ...base, seed: 1 })) as CheckFailed;
    expect(r.ok).toBe(false);
    expect(r.property).toBe('determinism');
    expect(r.failedAtRun).toBe(1);
    expect(r.determinism.ok).toBe(false);
    expect(r.determinism.hashes[0]).not.toBe(r.determinism.hashes[1]);
    const d = r.determinism.divergence!;
    expect(d.first).toMatchObject({ type: 'store:write', verb: 'updateStatus' });
    expect(d.second).toMatchObject({ type: 'store:write', verb: 'updateStatus' });
    expect(r.run.trace[d.index]).toEqual(d.first);
    expect(r.explanation).toMatch(/Math\.random\(\) was called \d+ times? during the re-run/);
    expect(r.explanation).toMatch(/first difference is entry #\d+/);
  });

  it('catches a reconciler that reads Date.now (the re-run shifts the wall clock, so it diverges for sure)', async () => {
    const r = (await check(stamping('clock', () => Date.now()), { ...base, seed: 2 })) as CheckFailed;
    expect(r.ok).toBe(false);
    expect(r.property).toBe('determinism');
    expect(r.explanation).toMatch(/Date\.now\(\) was called \d+ times? during the re-run \(use ctx\.clock\.now\(\)/);
    expect(r.determinism.divergence!.first).toMatchObject({ type: 'store:write' });
  });

  it('restores the host clock and Math.random after the re-run', async () => {
    const now = Date.now;
    const random = Math.random;
    await check(stamping('clock', () => Date.now()), { ...base, seed: 3 });
    expect(Date.now).toBe(now);
    expect(Math.random).toBe(random);
    expect(Math.abs(Date.now() - new Date().getTime())).toBeLessThan(1000);
  });

  it('reports a nondeterministic failure as "determinism", naming the property it had failed', async () => {
    const noisy = defineController({
      name: 'noisy',
      for: REPLICAS_KIND,
      async reconcile(ctx) {
        ctx.log.info('rolled', { value: Math.random() });
        // reports a generation it never catches up with: convergence fails
        const rs = await ctx.client.tryGet(REPLICAS_KIND, ctx.key);
        if (rs && rs.status['observedGeneration'] === undefined) await ctx.client.updateStatus({ ...rs, status: { observedGeneration: 0 } });
      },
    });
    const r = (await check(noisy, { ...base, seed: 4 })) as CheckFailed;
    expect(r.ok).toBe(false);
    expect(r.property).toBe('determinism');
    expect(r.evidence['failedProperty']).toBe('convergence');
    expect(r.summary).toMatch(/does not replay.*"convergence"/);
  });

  it('samples every 10th passing scenario; a deterministic controller passes', async () => {
    const r = await check(levelTriggered, { ...base, runs: 30, seed: 5 });
    expect(r.ok).toBe(true);
    expect(r.determinismChecked).toBe(3);
    const none = await check(levelTriggered, { ...base, runs: 30, seed: 5, determinism: false });
    expect(none.determinismChecked).toBe(0);
  });
});

describe('replay', () => {
  const scenario = (seed: number): Scenario => ({
    seed,
    controllers: [{ name: 'level-triggered' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: REPLICAS_KIND, metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3 }, status: { replicas: 0 } } }],
    faults: { events: [], background: [{ kind: 'event-loss', rate: 0.3 }] },
    options: { faultWindowMs: 20_000, settleMs: 5000 },
  });
  const run = async (s: Scenario) => (await simulate(s, { controllers: [levelTriggered], faults: [eventLoss] })).run;

  it('the same scenario twice gives the same trace hash (checkDeterminism agrees)', async () => {
    const first = await run(scenario(1));
    const report = await checkDeterminism(first, run);
    expect(report).toEqual({ ok: true, hashes: [first.hash, first.hash] });
  });

  it('different seeds under background faults give different traces', async () => {
    const hashes = new Set<string>();
    for (let seed = 1; seed <= 6; seed++) hashes.add((await run(scenario(seed))).hash);
    expect(hashes.size).toBeGreaterThan(3);
  });
});
