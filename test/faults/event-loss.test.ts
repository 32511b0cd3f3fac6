import { edgeTriggered } from '../../examples/replicas/edge-triggered.js';
import { levelTriggered } from '../../examples/replicas/level-triggered.js';
import { REPLICAS_KIND, TICK_MS, type ReplicasSpec, type ReplicasStatus } from '../../examples/replicas/replicas.js';
import { eventLoss } from '../../faults/event-loss.js';
import type { FaultPlan, RunRecord, Scenario, StoredObject } from '../../src/index.js';
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
