import { sameEndState } from '../../../properties/same-end-state.js';
import { statusTruthfulness } from '../../../properties/status-truthfulness.js';
import { deployment, podLifecycle } from '../../../src/index.js';
import { endStateMasks, type BugZooEntry } from '../zoo-entry.js';
import { buggyWebApp } from './buggy.js';
import { webApp } from './correct.js';
import { WEBAPP_KIND } from './web-app.js';

export const lyingStatus: BugZooEntry = {
  name: 'lying-status',
  family: 'anti-pattern',
  description: 'a WebApp controller reports Ready as soon as its Deployment is applied, seconds before any pod serves',
  caughtBy: 'status-truthfulness',
  property: () => statusTruthfulness(),
  buggy: [buggyWebApp],
  correct: [webApp],
  options: {
    objects: { kind: WEBAPP_KIND, name: 'shop', spec: [{ image: 'shop:1.4', replicas: 2 }, { image: 'shop:1.5', replicas: 3 }] },
    // the rest of the cluster: Deployments get ReplicaSets and pods, pods start and become Ready
    environment: [deployment, podLifecycle],
  },
  extraFaults: [],
  // which node a pod lands on (and its IPs) is the scheduler's choice, and timing decides it
  properties: [sameEndState({ masks: endStateMasks('spec.nodeName', 'status.hostIP', 'status.podIP') })],
  reproduction: {
    seed: 1,
    controllers: [{ name: 'web-app' }],
    environment: [{ name: 'deployment' }, { name: 'pod-lifecycle' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: WEBAPP_KIND, metadata: { name: 'shop', namespace: 'default' }, spec: { image: 'shop:1.4', replicas: 2 } } }],
    faults: { events: [], background: [] },
    options: { faultWindowMs: 5_000, settleMs: 20_000 },
  },
};
