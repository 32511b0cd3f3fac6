import { describe, expect, it } from 'vitest';
import { convergence } from '../../properties/convergence.js';
import { edgeTriggered } from '../../examples/replicas/edge-triggered.js';
import { levelTriggered } from '../../examples/replicas/level-triggered.js';
import fc from 'fast-check';
import { defineController, defineFault, type Scenario } from '../../src/index.js';
import { createAll, widget, widgetScenario } from '../../examples/property-targets/widget.js';
import { expectFailure, judgeScenario, propertyLaws } from '../helpers/property-laws.js';

function replicas(controller: string, events: Scenario['faults']['events'], rate = 0): Scenario {
  return {
    seed: 3,
    controllers: [{ name: controller }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: 'ReplicaSet', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3 }, status: { replicas: 0 } } }],
    faults: { events, background: rate > 0 ? [{ kind: 'event-loss', rate }] : [] },
    options: { faultWindowMs: 10_000, settleMs: 10_000 },
  };
}

propertyLaws({
  property: convergence(),
  buggy: { controllers: [edgeTriggered], scenario: replicas('edge-triggered', [{ kind: 'event-loss', nth: 1 }]) },
  correct: {
    controllers: [levelTriggered],
    scenarios: [
      { name: 'fault-free', scenario: replicas('level-triggered', []) },
      { name: 'one lost event', scenario: replicas('level-triggered', [{ kind: 'event-loss', nth: 1 }]) },
      { name: '30% lost events', scenario: replicas('level-triggered', [], 0.3) },
    ],
  },
  explains: [
    /the MODIFIED notification of default\/web to edge-triggered at t=0\.00\d s was dropped/,
    'ReplicaSet default/web has status.observedGeneration unset ≠ generation 1',
    'status.replicas 1 ≠ spec.replicas 3',
    /no reconcile of default\/web ran after t=0\.00\d s/,
    /the last controller write to it was updateStatus ReplicaSet default\/web by controller edge-triggered\/0 at t=0\.00\d s \(changed status.replicas\)/,
  ],
});

describe('convergence', () => {
  it('reports latency from the last fault or action when it holds', async () => {
    const { verdict } = await judgeScenario(convergence(), replicas('level-triggered', [{ kind: 'event-loss', nth: 1 }]), { controllers: [levelTriggered] });
    expect(verdict).toEqual({ ok: true, stats: { convergedAt: 2000, latencyMs: 1998 } });
  });
  it('uses the user predicate and its reason', async () => {
    const p = convergence({ converged: (view) => (view.list('ReplicaSet').every((o) => o.status['replicas'] === 4) ? true : 'replicas is not 4') });
    const v = expectFailure((await judgeScenario(p, replicas('level-triggered', []), { controllers: [levelTriggered] })).verdict);
    expect(v.explanation).toContain('the world had not converged: replicas is not 4');
    expect(v.summary).toContain('replicas is not 4');
  });
  it('needs stableFor consecutive checks', async () => {
    let n = 0;
    const flapping = convergence({ converged: () => (n++ % 2 === 0 ? true : 'flapped'), stableFor: 2 });
    const v = expectFailure((await judgeScenario(flapping, replicas('level-triggered', []), { controllers: [levelTriggered] })).verdict);
    expect(v.explanation).toMatch(/converged at t=\d+\.\d+ s but never for 2 consecutive checks/);
  });
  it('validates options', () => {
    expect(() => convergence({ stableFor: 0 })).toThrow('steadystate.properties.convergence: stableFor must be an integer ≥ 1, got 0');
  });
});

describe('convergence: a lost notification a GenerationChanged predicate never lets resync repair', () => {
  // records the generation it saw; the same code with and without controller-runtime's predicate
  const observer = (predicates: 'GenerationChanged'[]) =>
    defineController({
      name: 'observer',
      for: 'Widget',
      predicates,
      resyncPeriodMs: 2_000,
      async reconcile(ctx) {
        const w = await ctx.client.tryGet('Widget', ctx.key, { live: true });
        if (w && w.status['observedGeneration'] !== w.metadata.generation) await ctx.client.updateStatus({ ...w, status: { observedGeneration: w.metadata.generation } });
      },
    });
  const plan = (kind: string) => ({ events: [{ kind, nth: 0 }], background: [] });
  // a user's own fault that loses any notification (event-loss itself spares this one: client-go never loses it)
  const loseFirst = defineFault({
    kind: 'test-lose-first',
    models: 'the first notification of the run lost, whoever it is for',
    survivedBy: 'resync',
    actsOn: 'notify',
    arbitrary: () => fc.constant([]),
    install: ({ world, fired }) => world.seams.install({ onNotify: (i) => (i.seq === 0 ? (fired({ key: i.key }), 'drop') : undefined) }),
  });
  it('event loss spares the notification: the predicate controller passes the same plan', async () => {
    const { verdict, run } = await judgeScenario(convergence(), widgetScenario(['observer'], createAll([widget('a', 1)]), { faults: plan('event-loss') }), { controllers: [observer(['GenerationChanged'])] });
    expect(verdict).toEqual(expect.objectContaining({ ok: true }));
    expect(run.trace.filter((e) => e.type === 'fault:inject')).toEqual([]);
  });
  it('a fault that loses it anyway: fails, and says the predicate also drops the resyncs that would have repaired it', async () => {
    const lost = widgetScenario(['observer'], createAll([widget('a', 1)]), { faults: plan('test-lose-first') });
    const { verdict } = await judgeScenario(convergence(), lost, { controllers: [observer(['GenerationChanged'])], options: { faults: [loseFirst] } });
    const v = expectFailure(verdict);
    expect(v.explanation).toContain('no controller ever reconciled default/a (its ADDED notification to observer at t=');
    expect(v.explanation).toContain("observer's GenerationChanged predicate also drops the resyncs that would have repaired it");
  });
  it('the same controller without the predicate: event loss drops the notification, resync repairs it, and it passes', async () => {
    const { verdict, run } = await judgeScenario(convergence(), widgetScenario(['observer'], createAll([widget('a', 1)]), { faults: plan('event-loss') }), { controllers: [observer([])] });
    expect(verdict).toEqual(expect.objectContaining({ ok: true }));
    expect(run.trace.filter((e) => e.type === 'fault:inject')).toHaveLength(1);
  });
});
