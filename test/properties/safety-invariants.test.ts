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
  it('holds vacuously without invariants', async () => {
    const { verdict } = await judgeScenario(safetyInvariants(), scenario, { controllers: [podsSurgeBuggy] });
    expect(verdict).toEqual({ ok: true, stats: { checks: 0 } });
  });
  it('names the invariant and the write in the evidence', async () => {
    const v = expectFailure((await judgeScenario(property, scenario, { controllers: [podsSurgeBuggy] })).verdict);
    expect(v.evidence).toMatchObject({ invariant: 'at most replicas+1 pods', write: { verb: 'create', kind: 'Pod', key: 'default/web-g2-1' } });
  });
  it('rejects an invariant that is not a function', () => {
    expect(() => safetyInvariants({ invariants: { x: 3 as unknown as () => boolean } })).toThrow('steadystate.properties.safetyInvariants: invariant "x" must be a function');
  });
});
