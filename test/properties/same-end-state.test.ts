import { describe, expect, it } from 'vitest';
import { sameEndState } from '../../properties/same-end-state.js';
import { edgeTriggered } from '../../examples/replicas/edge-triggered.js';
import { levelTriggered } from '../../examples/replicas/level-triggered.js';
import { podsCorrect, replicaSet } from '../../examples/property-targets/pods.js';
import type { Scenario } from '../../src/index.js';
import { expectFailure, judgeScenario, propertyLaws } from '../helpers/property-laws.js';

function replicas(controller: string, faults: Scenario['faults']): Scenario {
  return {
    seed: 5,
    controllers: [{ name: controller }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: 'ReplicaSet', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3 }, status: { replicas: 0 } } }],
    faults,
    options: { faultWindowMs: 10_000, settleMs: 10_000 },
  };
}
const oneLost = { events: [{ kind: 'event-loss', nth: 1 }], background: [] };

propertyLaws({
  property: sameEndState(),
  buggy: { controllers: [edgeTriggered], scenario: replicas('edge-triggered', oneLost) },
  correct: {
    controllers: [levelTriggered],
    scenarios: [
      { name: 'one lost event', scenario: replicas('level-triggered', oneLost) },
      { name: '30% lost events', scenario: replicas('level-triggered', { events: [], background: [{ kind: 'event-loss', rate: 0.3 }] }) },
    ],
  },
  explains: ['ReplicaSet default/web: status.observedGeneration is undefined, 1 in the fault-free run and status.replicas is 1, 3 in the fault-free run', /the MODIFIED notification of default\/web to edge-triggered at t=0.00\d s was dropped/],
});

describe('sameEndState', () => {
  it('normalizes uids, versions and owner references (pods under a dropped watch event)', async () => {
    const s: Scenario = { ...replicas('replicaset', { events: [{ kind: 'test-watch-drop', nth: 0, target: 'Pod' }], background: [] }), workload: [{ at: 0, type: 'create', object: replicaSet('web', 2) }] };
    const { verdict } = await judgeScenario(sameEndState(), s, { controllers: [podsCorrect] });
    expect(verdict.ok).toBe(true);
  });
  it('masks fields', async () => {
    const { verdict } = await judgeScenario(sameEndState({ masks: ['status.replicas', 'status.observedGeneration'] }), replicas('edge-triggered', oneLost), { controllers: [edgeTriggered] });
    expect(verdict.ok).toBe(true);
  });
  it('does not judge without a twin', async () => {
    const { run } = await judgeScenario(sameEndState(), replicas('edge-triggered', oneLost), { controllers: [edgeTriggered] });
    expect(sameEndState().judge(run, undefined)).toEqual({ ok: true, stats: { judged: false, reason: 'no fault-free twin run was given' } });
  });
});
