import { describe, expect, it } from 'vitest';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import { podsCorrect, podsSurgeBuggy, replicaSet } from '../../examples/property-targets/pods.js';
import { widgetScenario } from '../../examples/property-targets/widget.js';
import type { WorldView } from '../../src/index.js';
import { expectFailure, judgeScenario, propertyLaws } from '../helpers/property-laws.js';

function atMostOneExtra(view: WorldView): boolean | string {
  for (const rs of view.list('ReplicaSet')) {
    const pods = view.list('Pod').filter((p) => p.metadata.ownerReferences.some((r) => r.uid === rs.metadata.uid)).length;
    const replicas = rs.spec['replicas'] as number;
    if (pods > replicas + 1) return `${pods} pods for ${rs.metadata.name}, replicas ${replicas}`;
  }
  return true;
}

const scenario = widgetScenario(['replicaset'], [
  { at: 0, type: 'create', object: replicaSet('web', 3) },
  { at: 2000, type: 'update', kind: 'ReplicaSet', key: 'default/web', spec: { replicas: 3, image: 'app:2' } },
]);
const property = safetyInvariants({ invariants: { 'at most replicas+1 pods': atMostOneExtra } });

propertyLaws({
  property,
  buggy: { controllers: [podsSurgeBuggy], scenario },
  correct: {
    controllers: [podsCorrect],
    scenarios: [
      { name: 'fault-free', scenario },
      { name: 'event loss', scenario: { ...scenario, faults: { events: [{ kind: 'event-loss', nth: 2 }], background: [{ kind: 'event-loss', rate: 0.3 }] } } },
      { name: 'a dropped Pod watch event', scenario: { ...scenario, faults: { events: [{ kind: 'test-watch-drop', nth: 1, target: 'Pod' }], background: [] } } },
    ],
  },
  explains: [/right after create Pod default\/web-g2-1 by controller replicaset\/0 at t=2\.\d+ s \(created it\), invariant "at most replicas\+1 pods" failed: 5 pods for web, replicas 3/, /made by the reconcile of default\/web/],
});

describe('safetyInvariants', () => {
  it('holds vacuously without invariants, and says it judged nothing', async () => {
    const { verdict } = await judgeScenario(safetyInvariants(), scenario, { controllers: [podsSurgeBuggy] });
    expect(verdict).toEqual({ ok: true, judged: false, why: 'no invariant was given (options.invariants is empty)', stats: { checks: 0 } });
  });
  it('names the invariant and the write in the evidence', async () => {
    const v = expectFailure((await judgeScenario(property, scenario, { controllers: [podsSurgeBuggy] })).verdict);
    expect(v.evidence).toMatchObject({ invariant: 'at most replicas+1 pods', write: { verb: 'create', kind: 'Pod', key: 'default/web-g2-1' } });
  });
  it('names the write that broke it when several share one virtual time, with objects made before the run (was: the last write at that time)', async () => {
    // binds a Pod to the node, then writes its status in the same reconcile: the binding overcommits, the status write does not
    const { defineController } = await import('../../src/index.js');
    const binder = defineController({
      name: 'binder',
      for: 'Pod',
      async reconcile(ctx) {
        const p = await ctx.client.tryGet<{ nodeName?: string }>('Pod', ctx.key);
        if (!p || p.spec.nodeName !== undefined) return;
        // the binding subresource (an update may not set nodeName), then a status write
        await ctx.client.create({ apiVersion: 'v1', kind: 'Binding', metadata: { name: p.metadata.name, namespace: p.metadata.namespace }, target: { kind: 'Node', name: 'node-a' } } as never);
        const bound = await ctx.client.get('Pod', ctx.key, { live: true });
        await ctx.client.updateStatus({ ...bound, status: { ...bound.status, phase: 'Bound' } });
      },
    });
    const pod = (name: string) => ({ kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'app:1' }] } });
    const oneOnNodeA = (view: WorldView): boolean | string => {
      const n = view.list('Pod').filter((p) => p.spec['nodeName'] === 'node-a').length;
      return n <= 1 || `${n} Pods on node-a`;
    };
    const s = { ...widgetScenario(['binder'], [{ at: 1000, type: 'create', object: pod('b') }]), initialObjects: [{ kind: 'Node', metadata: { name: 'node-a' }, spec: {} }, pod('a')] };
    const v = expectFailure((await judgeScenario(safetyInvariants({ invariants: { 'one Pod on node-a': oneOnNodeA } }), s as never, { controllers: [binder] })).verdict);
    expect(v.evidence).toMatchObject({ write: { verb: 'bind', key: 'default/b', changed: ['spec.nodeName', 'status.conditions'] } });
    expect(v.explanation).toMatch(/right after bind Pod default\/b by controller binder\/0 at t=1\.\d+ s \(changed spec\.nodeName, status\.conditions\)/);
  });

  it("does not judge a state drift's own write broke (another actor's doing), and still judges the other invariants", async () => {
    // drift labels a Pod the ReplicaSet controller made, at 1 s: a label no controller removes
    const drifted = { ...scenario, faults: { events: [{ kind: 'drift', at: 1000, params: { action: 'label', pick: 0 } }], background: [] } };
    const unlabelled = (view: WorldView) => view.list('Pod').every((p) => p.metadata.labels['drift.steadystate.dev/edited'] === undefined) || 'a Pod drift labelled';
    const both = safetyInvariants({ invariants: { 'no drift label': unlabelled, 'at most replicas+1 pods': atMostOneExtra } });
    const ok = (await judgeScenario(both, drifted, { controllers: [podsCorrect] })).verdict;
    expect(ok).toMatchObject({ ok: true, stats: { brokenByFaultWrites: expect.any(Number) } });
    const v = expectFailure((await judgeScenario(both, drifted, { controllers: [podsSurgeBuggy] })).verdict);
    expect(v.evidence).toMatchObject({ invariant: 'at most replicas+1 pods', write: { verb: 'create', kind: 'Pod' } });
  });

  it('rejects an invariant that is not a function', () => {
    expect(() => safetyInvariants({ invariants: { x: 3 as unknown as () => boolean } })).toThrow('steadystate.properties.safetyInvariants: invariant "x" must be a function');
  });
});
