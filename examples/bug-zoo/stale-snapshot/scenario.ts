import { noExtraDestructiveActions } from '../../../properties/no-extra-destructive-actions.js';
import { sameEndState } from '../../../properties/same-end-state.js';
import { endStateMasks, type BugZooEntry } from '../zoo-entry.js';
import { buggyReplicaSet } from './buggy.js';
import { replicaSet } from './correct.js';
import { replicaSetSpec, RS_KIND } from './replica-set.js';

export const staleSnapshot: BugZooEntry = {
  name: 'stale-snapshot',
  family: 'classic bug',
  description: 'a ReplicaSet controller counts its pods in a lagging cache and creates server-named pods: it scales to 5, then back to 3',
  caughtBy: 'no-extra-destructive-actions',
  property: () => noExtraDestructiveActions(),
  buggy: [buggyReplicaSet],
  correct: [replicaSet],
  options: {
    objects: { kind: RS_KIND, name: 'web', spec: [replicaSetSpec('web', 3, 'web:1.0'), replicaSetSpec('web', 5, 'web:1.0'), replicaSetSpec('web', 2, 'web:1.1')] },
  },
  extraFaults: [],
  properties: [sameEndState({ masks: endStateMasks() })],
  reproduction: {
    seed: 1,
    controllers: [{ name: 'replica-set' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: RS_KIND, metadata: { name: 'web', namespace: 'default' }, spec: replicaSetSpec('web', 3, 'web:1.0') } }],
    // the pod informer never hears of the first pod (until the relist when faults stop)
    faults: { events: [{ kind: 'watch-event-loss', nth: 1 }], background: [] },
    options: { faultWindowMs: 10_000, settleMs: 20_000 },
  },
};
