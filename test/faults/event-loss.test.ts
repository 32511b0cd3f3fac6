import { edgeTriggered } from '../../examples/replicas/edge-triggered.js';
import { levelTriggered } from '../../examples/replicas/level-triggered.js';
import { REPLICAS_KIND, TICK_MS, type ReplicasSpec, type ReplicasStatus } from '../../examples/replicas/replicas.js';
import { eventLoss } from '../../faults/event-loss.js';
import { describe, expect, it } from 'vitest';
import { FEATURE_FLAG, featureFlags } from '../../examples/false-positives/feature-flags.js';
import { simulate, type ControllerDefinition, type FaultPlan, type RunRecord, type Scenario, type StoredObject } from '../../src/index.js';
import { faultLaws } from '../helpers/fault-laws.js';

/** The reference experiment's scenario (SPEC §9) with an arbitrary plan: target 3 from 0. */
function scenario(controller: string, faults: FaultPlan, seed = 1): Scenario {
  return {
    seed,
    controllers: [{ name: controller }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: REPLICAS_KIND, metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3 }, status: { replicas: 0 } } }],
    faults,
    options: { faultWindowMs: 60 * TICK_MS, settleMs: 30 * TICK_MS },
  };
}

function judge(run: RunRecord): true | string {
  const rs = run.finalObjects.find((o) => o.kind === REPLICAS_KIND) as unknown as StoredObject<ReplicasSpec, ReplicasStatus> | undefined;
  if (!rs) return 'the ReplicaSet is gone';
  if (rs.status.replicas !== rs.spec.replicas) return `status.replicas is ${String(rs.status.replicas)}, spec.replicas is ${rs.spec.replicas}`;
  return true;
}

faultLaws({
  fault: eventLoss,
  label: 'edge- vs level-triggered replicas',
  scenario,
  buggy: edgeTriggered,
  correct: levelTriggered,
  judge,
  // the edge-triggered controller's own status write is what calls it again: lose that one and it stops
  breaking: { events: [{ kind: 'event-loss', nth: 1 }], background: [] },
  gen: { controllers: ['x'], kinds: [REPLICAS_KIND], keys: ['default/web'], faultWindowMs: 60 * TICK_MS, maxNth: 6 },
  minimalEvent: { kind: 'event-loss', nth: 0 },
  search: { numRuns: 100, shrinksTo: 1 },
});

describe('event-loss and a GenerationChanged predicate', () => {
  // every notification offered to the fault is dropped: what it spares is what it never drops
  const all: FaultPlan = { events: [], background: [{ kind: 'event-loss', rate: 1 }] };
  const flag = (name: string) => ({ kind: FEATURE_FLAG, metadata: { name, namespace: 'default' }, spec: { enabled: true, rollout: 10 } });
  const run = async (controllers: readonly ControllerDefinition[]) =>
    (
      await simulate(
        { seed: 1, controllers: [{ name: 'feature-flags' }], initialObjects: [], workload: [{ at: 0, type: 'create', object: flag('a') }, { at: 3_000, type: 'delete', kind: FEATURE_FLAG, key: 'default/a' }], faults: all, options: { faultWindowMs: 10_000, settleMs: 30_000 } },
        { controllers, faults: [eventLoss], downstream: featureFlags.options.downstream! },
      )
    ).run;
  const dropped = (r: RunRecord) => r.trace.filter((e) => e.type === 'informer:notify' && e['decision'] === 'drop').map((e) => `${String(e['kind'])} ${String(e['event'])}`);

  it("spares the primary's ADDED and MODIFIED notifications (nothing but a restart would repair them), not its DELETED nor its owned kinds'", async () => {
    const r = await run(featureFlags.controllers);
    expect(new Set(dropped(r))).toEqual(new Set(['ConfigMap ADDED', 'ConfigMap DELETED', 'FeatureFlag DELETED']));
  });
  it("drops the primary's notifications of the same controller without the predicate (its resyncs repair them)", async () => {
    const r = await run([{ ...featureFlags.controllers[0]!, predicates: [] }]);
    expect(dropped(r)).toContain('FeatureFlag ADDED');
    expect(dropped(r)).toContain('FeatureFlag DELETED');
  });
});
