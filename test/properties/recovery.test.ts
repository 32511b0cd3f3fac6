import { describe, expect, it } from 'vitest';
import { findRevert, recovery } from '../../properties/recovery.js';
import { podsCorrect, podsNoScaleDownBuggy, replicaSet } from '../../examples/property-targets/pods.js';
import { widgetScenario } from '../../examples/property-targets/widget.js';
import { expectFailure, judgeScenario, propertyLaws } from '../helpers/property-laws.js';

const scenario = widgetScenario(['replicaset'], [
  { at: 0, type: 'create', object: replicaSet('web', 2) },
  { at: 1000, type: 'update', kind: 'ReplicaSet', key: 'default/web', spec: { replicas: 4 } },
  { at: 3000, type: 'update', kind: 'ReplicaSet', key: 'default/web', spec: { replicas: 2 } },
]);

propertyLaws({
  property: recovery(),
  buggy: { controllers: [podsNoScaleDownBuggy], scenario },
  correct: {
    controllers: [podsCorrect],
    scenarios: [
      { name: 'fault-free', scenario },
      { name: 'event loss', scenario: { ...scenario, faults: { events: [{ kind: 'event-loss', nth: 2 }], background: [{ kind: 'event-loss', rate: 0.3 }] } } },
    ],
  },
  explains: ['the user changed the spec of ReplicaSet default/web at t=1.0 s from {"replicas":2} to {"replicas":4} and set it back at t=3.0 s', 'Pod default/web-2 exists, but not in the earlier end state', 'Pod default/web-3 exists'],
});

describe('findRevert', () => {
  it('finds an update away and back, also through a spec patch', () => {
    expect(findRevert(scenario)).toEqual({ kind: 'ReplicaSet', key: 'default/web', awayAt: 1000, backAt: 3000, spec: { replicas: 2 }, awaySpec: { replicas: 4 } });
    const patched = { ...scenario, workload: [scenario.workload[0]!, scenario.workload[1]!, { at: 2000, type: 'patch' as const, kind: 'ReplicaSet', key: 'default/web', patch: { spec: { replicas: 2 } } }] };
    expect(findRevert(patched)?.backAt).toBe(2000);
    expect(findRevert({ ...scenario, workload: scenario.workload.slice(0, 2) })).toBeUndefined();
  });
  it('passes runs without a revert, saying so', async () => {
    const { verdict } = await judgeScenario(recovery(), { ...scenario, workload: scenario.workload.slice(0, 2) }, { controllers: [podsNoScaleDownBuggy] });
    expect(verdict).toEqual({ ok: true, stats: { judged: false, reason: 'the workload reverts no spec' } });
  });
  it('asks for a fault-free run of the workload before the first update', () => {
    const extra = recovery().extraRuns!(scenario)['recovery:before']!;
    expect(extra.workload).toHaveLength(1);
    expect(extra.faults).toEqual({ events: [], background: [] });
  });
  it('reports the differences in the evidence', async () => {
    const v = expectFailure((await judgeScenario(recovery(), scenario, { controllers: [podsNoScaleDownBuggy] })).verdict);
    expect(v.evidence['differences']).toEqual([
      { id: 'Pod default/web-2', change: 'extra', paths: [] },
      { id: 'Pod default/web-3', change: 'extra', paths: [] },
    ]);
  });
});
