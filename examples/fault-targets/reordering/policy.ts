import type { FaultPlan, NewObject, RunRecord, Scenario } from '../../../src/index.js';

/**
 * The bucket-policy fixture (two watches): a `BucketPolicy` names the `Bucket` it applies to
 * (by name, no ownerReference: buckets and policies are made by different people), and a
 * controller for policies removes those whose bucket is gone (an orphan reaper). The user
 * creates the bucket first and its policy 100 ms later. The controller watches both kinds, so
 * their events may cross: the policy's ADDED can come before its bucket's. (Both reapers delete a
 * policy created before its bucket, so the pair is for these fixed scenarios, not for `check`'s
 * generated workloads.)
 */
export const BUCKET = 'Bucket';
export const POLICY = 'BucketPolicy';

export interface PolicySpec {
  bucket: string;
  public: boolean;
}

const bucket = (name: string): NewObject => ({ kind: BUCKET, metadata: { name, namespace: 'default' }, spec: { region: 'eu' } });
const policy = (name: string, bucketName: string): NewObject => ({ kind: POLICY, metadata: { name, namespace: 'default' }, spec: { bucket: bucketName, public: false } });

/** The bucket at t=100, its policy at t=200; a second pair at t=300/400. */
export function policyScenario(controller: string, faults: FaultPlan, seed = 1): Scenario {
  return {
    seed,
    controllers: [{ name: controller }],
    initialObjects: [],
    workload: [
      { at: 100, type: 'create', object: bucket('logs') },
      { at: 200, type: 'create', object: policy('logs-private', 'logs') },
      { at: 300, type: 'create', object: bucket('media') },
      { at: 400, type: 'create', object: policy('media-private', 'media') },
    ],
    faults,
    options: { faultWindowMs: 10_000, settleMs: 10_000 },
  };
}

/** Healthy when every policy whose bucket exists survived. */
export function judgePolicies(run: RunRecord): true | string {
  const buckets = new Set(run.finalObjects.filter((o) => o.kind === BUCKET).map((o) => o.metadata.name));
  for (const name of ['logs-private', 'media-private']) {
    const p = run.finalObjects.find((o) => o.kind === POLICY && o.metadata.name === name);
    const wanted = (p?.spec as unknown as PolicySpec | undefined)?.bucket ?? name.replace(/-private$/, '');
    if (!p && buckets.has(wanted)) {
      const del = run.writes.find((w) => w.kind === POLICY && w.key === `default/${name}` && w.verb === 'delete');
      return `BucketPolicy ${name} was deleted${del ? ` by ${del.actor} at t=${del.t}` : ''} although its Bucket ${wanted} exists`;
    }
  }
  return true;
}
