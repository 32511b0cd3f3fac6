import { describe, expect, it } from 'vitest';
import { checkSystematic } from '../../src/harness/systematic.js';
import type { Scenario } from '../../src/harness/scenario.js';
import { edgeTriggered } from '../../examples/replicas/edge-triggered.js';
import { levelTriggered } from '../../examples/replicas/level-triggered.js';
import { allFaults } from '../../faults/index.js';
import { eventLoss } from '../../faults/event-loss.js';
import { convergence } from '../../properties/convergence.js';
import { noExtraDestructiveActions } from '../../properties/no-extra-destructive-actions.js';
import { replicaObjects } from './check-fixtures.js';
import { appObjects, deterministicNameApp, generateNameApp } from './crash-fixtures.js';

const replicas = { objects: replicaObjects, faults: allFaults, properties: [convergence()] };

describe('checkSystematic', () => {
  it('runs every strategy on a correct controller and passes', async () => {
    const r = await checkSystematic(levelTriggered, replicas);
    expect(r.ok).toBe(true);
    expect(r.systematic.strategies.map((s) => s.strategy)).toEqual(['crash-after-write', 'stale-read-before-write', 'unobserved-state', 'unnotified-state']);
    for (const s of r.systematic.strategies) {
      expect(s.plans).toBeGreaterThan(0);
      expect(s.fired).toBe(s.plans);
      expect(s.failures).toBe(0);
    }
    expect(r.runs).toBe(r.systematic.plans + 1);
    expect(r.coverage.map((c) => c.kind)).toEqual(['crash-restart', 'stale-snapshot', 'watch-event-loss', 'event-loss']);
  });

  it('finds the edge-triggered bug with a single derived fault and says which plan it was', async () => {
    const r = await checkSystematic(edgeTriggered, replicas);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.property).toBe('convergence');
    expect(r.systematic.failingPlan).toBeDefined();
    expect(r.scenario.faults.background).toEqual([]);
    expect(new Set(r.scenario.faults.events.map((e) => e.kind)).size).toBe(1);
    expect(r.systematic.strategies.reduce((n, s) => n + s.failures, 0)).toBeGreaterThan(0);
    expect(r.path).toBe('');
    expect(r.determinism.ok).toBe(true);
  });

  it('finds the crash-consistency bug after the create, and passes its fix', async () => {
    const opts = { objects: appObjects, faults: allFaults, properties: [noExtraDestructiveActions()] };
    const buggy = await checkSystematic(generateNameApp, { ...opts, strategies: ['crash-after-write'] });
    expect(buggy.ok).toBe(false);
    if (buggy.ok) return;
    expect(buggy.systematic.failingPlan).toEqual({ strategy: 'crash-after-write', target: expect.stringMatching(/^after write #0 of generate-name-app: create Pod/) });
    expect(buggy.scenario.faults.events).toEqual([{ kind: 'crash-restart', nth: 0, target: 'generate-name-app', params: { point: 'after-write' } }]);
    const fixed = await checkSystematic(deterministicNameApp, opts);
    expect(fixed.ok).toBe(true);
  });

  it('skips a strategy whose fault kind is not given, and says why', async () => {
    const r = await checkSystematic(levelTriggered, { ...replicas, faults: [eventLoss] });
    const skipped = r.systematic.strategies.filter((s) => s.skipped);
    expect(skipped.map((s) => s.strategy)).toEqual(['crash-after-write', 'stale-read-before-write', 'unobserved-state']);
    expect(skipped[0]!.skipped).toMatch(/fault kind "crash-restart" is not among options\.faults/);
    expect(r.systematic.strategies.find((s) => s.strategy === 'unnotified-state')!.plans).toBeGreaterThan(0);
  });

  it('derives plans from the scenarios you give, and stops at the first failure when asked', async () => {
    const scenario: Scenario = {
      seed: 3,
      controllers: [{ name: 'edge-triggered' }],
      initialObjects: [],
      workload: [{ at: 0, type: 'create', object: { kind: 'ReplicaSet', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3 }, status: { replicas: 0 } } }],
      faults: { events: [], background: [] },
      options: { faultWindowMs: 5000, settleMs: 5000 },
    };
    const all = await checkSystematic(edgeTriggered, { ...replicas, scenarios: [scenario] });
    const first = await checkSystematic(edgeTriggered, { ...replicas, scenarios: scenario, stopOnFailure: true });
    expect(first.ok).toBe(false);
    expect(first.runs).toBeLessThan(all.runs);
    expect(!first.ok && first.scenario.workload[0]!.type === 'create' && first.scenario.workload[0]!.object.metadata.name).toBe('web');
  });

  it('rejects unknown strategies and foreign scenarios with the option named', async () => {
    await expect(checkSystematic(levelTriggered, { ...replicas, strategies: ['chaos' as never] })).rejects.toThrow(/^steadystate\.checkSystematic: options\.strategies contains "chaos"/);
    await expect(checkSystematic(levelTriggered, { ...replicas, maxPlans: 0 })).rejects.toThrow(/options\.maxPlans must be an integer ≥ 1/);
    const foreign: Scenario = { seed: 1, controllers: [{ name: 'someone-else' }], initialObjects: [], workload: [], faults: { events: [], background: [] } };
    await expect(checkSystematic(levelTriggered, { ...replicas, scenarios: foreign })).rejects.toThrow(/options\.scenarios\[0\] names controller "someone-else"/);
  });
});
