import { noFighting } from '../../../properties/no-fighting.js';
import { sameEndState } from '../../../properties/same-end-state.js';
import type { NewObject } from '../../../src/index.js';
import { endStateMasks, type BugZooEntry } from '../zoo-entry.js';
import { autoscaler } from './autoscaler.js';
import { buggyGitopsSync } from './buggy.js';
import { gitopsSync } from './correct.js';
import { APP_KIND, HPA_KIND, type ApplicationSpec, type HpaSpec } from './kinds.js';

// generated objects are named shop-0, shop-1, …: each application deploys a Deployment of its own
// name, and every autoscaler targets the first one (in a world of three or more objects, two
// autoscalers can share it: the autoscaler then stands back, see autoscaler.ts)
const shopApp: ApplicationSpec = { image: 'shop:1.4', replicas: 2 };
const shopHpa: HpaSpec = { scaleTargetRef: 'shop-0', minReplicas: 4, maxReplicas: 10 };

function create(kind: string, name: string, spec: ApplicationSpec | HpaSpec): NewObject {
  return { kind, metadata: { name, namespace: 'default' }, spec: { ...spec } };
}

export const controllersFighting: BugZooEntry = {
  name: 'controllers-fighting',
  family: 'classic bug',
  description: 'a GitOps sync controller re-applies spec.replicas that an autoscaler owns; the field flips between them forever',
  caughtBy: 'no-fighting',
  property: () => noFighting(),
  buggy: [buggyGitopsSync, autoscaler],
  correct: [gitopsSync, autoscaler],
  options: {
    // the application first: a generated world holds it alone, or it with its autoscaler
    objects: [
      { kind: APP_KIND, name: 'shop', spec: [{ ...shopApp }, { ...shopApp, image: 'shop:1.5' }] },
      { kind: HPA_KIND, name: 'shop-hpa', spec: [{ ...shopHpa }, { ...shopHpa, minReplicas: 6 }] },
    ],
  },
  extraFaults: [],
  properties: [sameEndState({ masks: endStateMasks() })],
  reproduction: {
    seed: 1,
    controllers: [{ name: 'gitops-sync' }, { name: 'autoscaler' }],
    initialObjects: [],
    workload: [
      { at: 0, type: 'create', object: create(APP_KIND, 'shop-0', shopApp) },
      { at: 0, type: 'create', object: create(HPA_KIND, 'shop-hpa', shopHpa) },
    ],
    faults: { events: [], background: [] },
    options: { faultWindowMs: 5_000, settleMs: 20_000 },
  },
};
