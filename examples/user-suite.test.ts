/**
 * A complete user-style test file: copy it next to your controller and adapt the three marked
 * places (the controller, the objects it reconciles, the options). It uses only the public
 * entry points, `steadystate` and `steadystate/vitest`, exactly as an installed package would.
 *
 * Run: npx vitest run examples/user-suite.test.ts
 */
import { test as propTest, fc } from '@fast-check/vitest';
import { check, defineController, faults, simulate, type CheckOptions, type Scenario } from 'steadystate';
import 'steadystate/vitest'; // adds toPassCheck / toHold / toPassReproduction (or list it in setupFiles)
import { describe, expect, test } from 'vitest';

// (1) The controller under test. Here: keep status.replicas equal to spec.replicas, one step
// per reconcile, reading the current object by key (level-triggered).
interface Spec {
  replicas: number;
}
interface Status {
  replicas?: number;
  observedGeneration?: number;
}

const replicaSet = defineController({
  name: 'replica-set',
  for: 'ReplicaSet',
  resyncPeriodMs: 5_000,
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet<Spec, Status>('ReplicaSet', ctx.key);
    if (!rs) return;
    const actual = rs.status.replicas ?? 0;
    const desired = rs.spec.replicas;
    if (actual === desired && rs.status.observedGeneration === rs.metadata.generation) return;
    const next = actual < desired ? actual + 1 : actual > desired ? actual - 1 : actual;
    await ctx.client.updateStatus({ ...rs, status: { replicas: next, ...(next === desired ? { observedGeneration: rs.metadata.generation } : {}) } });
    return next === desired ? undefined : { requeueAfter: 1_000 };
  },
});

// The same controller with the classic bug: it acts only when an event arrives (edge-triggered).
const edgeReplicaSet = defineController({
  name: 'edge-replica-set',
  for: 'ReplicaSet',
  resyncPeriodMs: 0,
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet<Spec, Status>('ReplicaSet', ctx.key);
    if (!rs || (rs.status.replicas ?? 0) === rs.spec.replicas) return;
    const next = (rs.status.replicas ?? 0) + Math.sign(rs.spec.replicas - (rs.status.replicas ?? 0));
    await ctx.client.updateStatus({ ...rs, status: { replicas: next, ...(next === rs.spec.replicas ? { observedGeneration: rs.metadata.generation } : {}) } });
  },
});

// (2) What the objects look like: fast-check generates specs from this.
const options: CheckOptions = {
  objects: { kind: 'ReplicaSet', spec: fc.record({ replicas: fc.integer({ min: 0, max: 4 }) }), status: { replicas: 0 } },
  // (3) How hard to try. A fixed seed makes CI reproducible; drop it to explore new scenarios.
  runs: 40,
  seed: 2024,
};

describe('replica-set controller', () => {
  test('converges, is idempotent and never hot-loops under every fault kind', async () => {
    await expect(replicaSet).toPassCheck({ ...options, reportDir: 'reports/user-suite' });
  });

  test('the edge-triggered variant is caught, with a one-fault reproduction', async () => {
    // pin the fault kinds when you want a focused check (default: every kind, swarm-sampled)
    const result = await check(edgeReplicaSet, { ...options, faults: [faults.eventLoss] });
    expect(result).not.toHold();
    if (result.ok) return;
    expect(result.property).toBe('convergence');
    // shrunk to the essence: a single lost event
    expect(result.scenario.faults.events.length + result.scenario.faults.background.length).toBeLessThanOrEqual(1);
    expect(result.explanation).toMatch(/Let: .*Then: /s);
  });
});

// Your own properties, written with @fast-check/vitest, on top of `simulate`.
describe('hand-written properties', () => {
  propTest.prop([fc.integer({ min: 0, max: 6 }), fc.nat({ max: 5 })])('reaches any target after any single lost event', async (replicas, nth) => {
    const scenario: Scenario = {
      seed: 1,
      controllers: [{ name: 'replica-set' }],
      initialObjects: [],
      workload: [{ at: 0, type: 'create', object: { kind: 'ReplicaSet', metadata: { name: 'web', namespace: 'default' }, spec: { replicas }, status: { replicas: 0 } } }],
      faults: { events: [{ kind: 'event-loss', nth }], background: [] },
      options: { faultWindowMs: 5_000, settleMs: 20_000 },
    };
    const { run } = await simulate(scenario, { controllers: [replicaSet] });
    const web = run.settledObjects.find((o) => o.metadata.name === 'web');
    expect((web?.status as Status | undefined)?.replicas).toBe(replicas);
  });
});
