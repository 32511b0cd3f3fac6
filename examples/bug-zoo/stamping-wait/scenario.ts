import { noHotLoop } from '../../../properties/no-hot-loop.js';
import { sameEndState } from '../../../properties/same-end-state.js';
import { deployment, podLifecycle } from '../../../src/index.js';
import { endStateMasks, type BugZooEntry } from '../zoo-entry.js';
import { webApp } from '../lying-status/correct.js';
import { WEBAPP_KIND } from '../lying-status/web-app.js';
import { buggyWaitingWebApp } from './buggy.js';

/** A slow image pull: pods take 3 s to start, so a controller waiting for them waits that long. */
const slowPull = { actor: podLifecycle, params: { startMs: 3_000 } };

export const stampingWait: BugZooEntry = {
  name: 'stamping-wait',
  family: 'anti-pattern',
  description: 'a WebApp controller stamps lastCheckedAt on every pass while its pods start; each stamp triggers the next (thousands of writes, then quiet)',
  caughtBy: 'no-hot-loop',
  property: () => noHotLoop(),
  buggy: [buggyWaitingWebApp],
  // the lying-status exhibit's fixed controller: Ready from the Deployment's own report, written only when it changes
  correct: [webApp],
  options: {
    objects: { kind: WEBAPP_KIND, name: 'shop', spec: [{ image: 'shop:1.4', replicas: 2 }, { image: 'shop:1.5', replicas: 3 }] },
    environment: [deployment, slowPull],
  },
  extraFaults: [],
  // which node a pod lands on (and its IPs) is the scheduler's choice, and timing decides it
  properties: [sameEndState({ masks: endStateMasks('spec.nodeName', 'status.hostIP', 'status.podIP') })],
  reproduction: {
    seed: 1,
    controllers: [{ name: 'web-app' }],
    environment: [{ name: 'deployment' }, { name: 'pod-lifecycle', params: { startMs: 3_000 } }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: WEBAPP_KIND, metadata: { name: 'shop', namespace: 'default' }, spec: { image: 'shop:1.4', replicas: 2 } } }],
    faults: { events: [], background: [] },
    options: { faultWindowMs: 5_000, settleMs: 20_000 },
  },
};
