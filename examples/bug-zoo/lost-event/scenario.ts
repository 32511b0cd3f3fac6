import { convergence } from '../../../properties/convergence.js';
import { sameEndState } from '../../../properties/same-end-state.js';
import { edgeTriggered } from '../../replicas/edge-triggered.js';
import { levelTriggered } from '../../replicas/level-triggered.js';
import { REPLICAS_KIND } from '../../replicas/replicas.js';
import { endStateMasks, type BugZooEntry } from '../zoo-entry.js';

/**
 * The reference experiment's pair (SPEC §9), reused from `examples/replicas/`: the same
 * controllers, here as an exhibit of the zoo.
 */
export const lostEvent: BugZooEntry = {
  name: 'lost-event',
  family: 'classic bug',
  description: 'an edge-triggered replicas controller takes one step per event, so one lost event leaves it short forever',
  caughtBy: 'convergence',
  property: () => convergence(),
  buggy: [edgeTriggered],
  correct: [levelTriggered],
  options: {
    objects: { kind: REPLICAS_KIND, name: 'web', spec: [{ replicas: 3 }, { replicas: 1 }, { replicas: 5 }], status: { replicas: 0 } },
  },
  extraFaults: [],
  properties: [sameEndState({ masks: endStateMasks() })],
  reproduction: {
    seed: 1,
    controllers: [{ name: 'edge-triggered' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: REPLICAS_KIND, metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3 }, status: { replicas: 0 } } }],
    // the controller's own second status write is not delivered to its queue
    faults: { events: [{ kind: 'event-loss', nth: 1 }], background: [] },
    options: { faultWindowMs: 10_000, settleMs: 20_000 },
  },
};
