import type { FaultPlan, NewObject, OwnerReference, RunRecord, Scenario, StoredObject } from '../../../src/index.js';

/**
 * The single-child fixture: an `App` wants exactly one `Pod` running its image, and records the
 * Pod's name in `status.child`. The shared target of the cache and crash faults: the buggy
 * reconciler trusts its own bookkeeping and creates with `generateName`, the correct one
 * derives the child's name from the parent and checks the child itself.
 */
export const APP = 'App';
export const POD = 'Pod';

export interface AppSpec {
  image: string;
}
export interface AppStatus {
  child?: string;
  observedGeneration?: number;
}
export interface PodSpec {
  containers: { name: string; image: string }[];
}

/** A Pod spec running `image` (its one container). */
export function podSpecFor(image: string): PodSpec {
  return { containers: [{ name: 'app', image }] };
}

/** The image a Pod runs. */
export function imageOf(pod: StoredObject<PodSpec>): string | undefined {
  return pod.spec.containers?.[0]?.image;
}

/** The controller reference of a Pod owned by `app`. */
export function ownerRefTo(app: StoredObject<AppSpec, AppStatus>): OwnerReference {
  return { apiVersion: 'example.dev/v1', kind: APP, name: app.metadata.name, uid: app.metadata.uid, controller: true };
}

function app(name: string, image: string): NewObject {
  return { kind: APP, metadata: { name, namespace: 'default' }, spec: { image } };
}

/** Two Apps created at t=100 and t=200 (so their events pass the watch seams). */
export function singleChildScenario(controller: string, faults: FaultPlan, seed = 1): Scenario {
  return {
    seed,
    controllers: [{ name: controller }],
    initialObjects: [],
    workload: [
      { at: 100, type: 'create', object: app('web', 'nginx:1') },
      { at: 200, type: 'create', object: app('api', 'node:20') },
    ],
    faults,
    options: { faultWindowMs: 10_000, settleMs: 10_000 },
  };
}

/** Healthy when every App has exactly one Pod it controls, running its image and named in its status. */
export function judgeSingleChild(run: RunRecord): true | string {
  const apps = run.finalObjects.filter((o) => o.kind === APP) as unknown as StoredObject<AppSpec, AppStatus>[];
  const pods = run.finalObjects.filter((o) => o.kind === POD) as unknown as StoredObject<PodSpec>[];
  if (apps.length === 0) return 'no App objects at the end';
  for (const a of apps) {
    const mine = pods.filter((p) => p.metadata.ownerReferences.some((r) => r.controller && r.uid === a.metadata.uid));
    if (mine.length !== 1) return `App ${a.metadata.name} controls ${mine.length} Pods (${names(mine)}), expected exactly 1`;
    const pod = mine[0]!;
    if (imageOf(pod) !== a.spec.image) return `Pod ${pod.metadata.name} runs ${String(imageOf(pod))}, App ${a.metadata.name} wants ${a.spec.image}`;
    if (a.status.child !== pod.metadata.name) return `App ${a.metadata.name} status.child is ${String(a.status.child)}, its Pod is ${pod.metadata.name}`;
  }
  return true;
}

function names(objs: StoredObject<PodSpec>[]): string {
  const shown = objs.slice(0, 4).map((o) => o.metadata.name);
  return objs.length === 0 ? 'none' : objs.length > 4 ? `${shown.join(', ')}, …` : shown.join(', ');
}
