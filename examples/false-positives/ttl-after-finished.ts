import { defineController, fromVirtualTimestamp, isStoreError, job, podLifecycle, type ReconcileContext, type ReconcileResult, type StoredObject, type WorldView } from '../../src/index.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { convergence } from '../../properties/convergence.js';

/**
 * kube-controller-manager's TTL-after-finished controller: a Job someone else made (here the
 * workload, run to the end by the built-in Job controller and kubelet) that has finished, its
 * `Complete` or `Failed` condition True since a time T, and sets `spec.ttlSecondsAfterFinished`,
 * is deleted at T + ttl (with its Pods, foreground cascade). Until then the controller asks to be
 * called again at the expiry (`requeueAfter`); a Job without a TTL, or not finished, is left
 * alone; the TTL field stays mutable after the Job finished (a person extends it to keep the Job
 * for a post-mortem: `kubectl patch job x -p '{"spec":{"ttlSecondsAfterFinished":600}}'`).
 *
 * It decides from its informer cache, as the real one does, but a cache is a view of the past:
 * when the cached Job says the TTL expired, the Job is read again LIVE and the expiry computed
 * from that read (a TTL the user extended meanwhile, or a Job deleted and made again under the
 * same name, is then seen), and the delete carries the uid and resourceVersion of that read as
 * preconditions, so a TTL changed between the read and the delete gets a 409 and a fresh look
 * instead of a deletion (the real controller re-reads the same way; it sends the uid only).
 *
 * Its buggy twin deletes on the cached view alone (uid precondition, no live re-read), as a first
 * version does: a cache that has not yet seen the user's extension (an event lost or delayed, a
 * lagging replica after a restart) deletes a Job the user asked to keep.
 *
 * A false alarm of ours the hunt found here, fixed (swarm seeds 4-12: 3/1350 runs, guided 4/1350,
 * all seed 5; no-extra-destructive-actions and same-end-state, ablation cause api-error): the
 * user's extension at 6 s got a 429 with Retry-After 5 s; the TTL ran out at 10.1 s, the
 * controller read the Job live (TTL 8) and deleted it, as the real one would, and the retry at
 * 11 s found it gone. The twin's variation with the user's action at the time the run's retry
 * reached the API server (src/harness/twin.ts userAcceptedLate) counted only a retry that was
 * accepted; it now also takes one the API server refused for itself (the NotFound here, as a
 * fault-free patch sent then is). Regression entry in test/e2e/false-positives-regressions.test.ts.
 */
export const JOB = 'Job';

interface JobCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
}

/** When the Job finished: the lastTransitionTime of its True Complete or Failed condition (jobFinishTime). */
export function finishedAt(j: StoredObject): number | undefined {
  const conditions = (j.status['conditions'] ?? []) as unknown as JobCondition[];
  const c = conditions.find((x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True');
  if (!c) return undefined;
  if (c.lastTransitionTime !== undefined) return fromVirtualTimestamp(c.lastTransitionTime);
  const done = j.status['completionTime'];
  return typeof done === 'string' ? fromVirtualTimestamp(done) : undefined;
}

/** When the Job's TTL runs out (undefined: no TTL, or not finished). */
export function expiresAt(j: StoredObject): number | undefined {
  const ttl = j.spec['ttlSecondsAfterFinished'];
  if (typeof ttl !== 'number' || ttl < 0) return undefined;
  const t = finishedAt(j);
  return t === undefined ? undefined : t + ttl * 1000;
}

function define(mistake: 'none' | 'cached-delete') {
  return async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    const cached = await ctx.client.tryGet(JOB, ctx.key);
    if (!cached || cached.metadata.deletionTimestamp !== undefined) return undefined;
    const due = expiresAt(cached);
    if (due === undefined) return undefined; // its status or TTL changing brings it back
    const now = ctx.clock.now();
    if (now < due) return { requeueAfter: due - now };
    // BUG (cached-delete): the cache says expired, and that is taken as the truth
    const fresh = mistake === 'none' ? await ctx.client.tryGet(JOB, ctx.key, { live: true }) : cached;
    if (!fresh || fresh.metadata.deletionTimestamp !== undefined) return undefined;
    const freshDue = expiresAt(fresh);
    if (freshDue === undefined) return undefined;
    if (now < freshDue) return { requeueAfter: freshDue - now };
    const preconditions = mistake === 'none' ? { uid: fresh.metadata.uid, resourceVersion: fresh.metadata.resourceVersion } : { uid: fresh.metadata.uid };
    try {
      await ctx.client.delete(JOB, { namespace: fresh.metadata.namespace, name: fresh.metadata.name }, { preconditions, propagationPolicy: 'Foreground' });
    } catch (err) {
      if (isStoreError(err) && err.reason === 'NotFound') return undefined;
      throw err; // a 409: changed since the read, look again (rate-limited requeue)
    }
    return undefined;
  };
}

const defineTtl = (mistake: 'none' | 'cached-delete') => defineController({ name: 'ttl-after-finished', for: JOB, leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: define(mistake) });

export const ttlAfterFinishedController = defineTtl('none');

/** Converged: no finished Job whose TTL ran out is still there (one being deleted is on its way). */
export function noExpiredJobs(view: WorldView): true | string {
  for (const j of view.list(JOB)) {
    if (j.metadata.deletionTimestamp !== undefined) continue;
    const due = expiresAt(j);
    if (due !== undefined && view.now() >= due) return `Job ${j.metadata.namespace}/${j.metadata.name} finished and its TTL ran out at ${due} ms; it is still there at ${view.now()} ms`;
  }
  return true;
}

/** A Job whose one Pod runs `runMs` and exits with `exitCode`; only the TTL changes between specs (a Job's template is immutable). */
const jobSpec = (image: string, ttl: number | undefined, runMs: number, exitCode = 0) => ({
  backoffLimit: 0,
  ...(ttl !== undefined ? { ttlSecondsAfterFinished: ttl } : {}),
  template: {
    metadata: { annotations: { 'steadystate.dev/run-ms': String(runMs), ...(exitCode !== 0 ? { 'steadystate.dev/exit-code': String(exitCode) } : {}) } },
    spec: { restartPolicy: 'Never', containers: [{ name: 'main', image }] },
  },
});

export const ttlAfterFinished: FalsePositiveCase = {
  name: 'ttl-after-finished',
  description: "kube's TTL-after-finished controller: deletes a finished Job (Complete or Failed) once spec.ttlSecondsAfterFinished has passed, requeueing until then, re-reading the Job live and deleting with uid + resourceVersion preconditions so a TTL the user extended is honoured",
  controllers: [ttlAfterFinishedController],
  options: {
    // the user makes Jobs and changes their TTL (kept, extended, shortened, removed); the Job
    // controller and kubelet run them: one succeeds after 1 s, one fails after 0.5 s
    // a nightly Job someone keeps for a post-mortem: it finishes at about 2 s, its TTL would run
    // out at about 10 s, and at 6 s the user extends it to ten minutes
    story: {
      objects: [{ apiVersion: 'batch/v1', kind: JOB, metadata: { name: 'nightly', namespace: 'default' }, spec: jobSpec('nightly:1', 8, 1000) }],
      actions: [{ at: 6000, type: 'patch', kind: JOB, key: 'default/nightly', patch: { spec: { ttlSecondsAfterFinished: 600 } } }],
    },
    objects: [
      { kind: JOB, name: 'report', spec: [jobSpec('report:1', 4, 1000), jobSpec('report:1', 20, 1000), jobSpec('report:1', undefined, 1000), jobSpec('report:1', 0, 1000)] },
      { kind: JOB, name: 'flaky', spec: [jobSpec('flaky:1', 6, 500, 1), jobSpec('flaky:1', 600, 500, 1), jobSpec('flaky:1', 2, 500, 1)] },
    ],
    environment: [job, podLifecycle],
    maxObjects: 3,
  },
  properties: [convergence({ converged: noExpiredJobs }), ...podEndStateProperties()],
  buggy: {
    controllers: [defineTtl('cached-delete')],
    caughtBy: ['no-extra-destructive-actions', 'same-end-state'],
    why: 'it deletes on its cached view of the Job: a cache that has not yet seen the TTL the user extended deletes a Job the user asked to keep',
  },
};
