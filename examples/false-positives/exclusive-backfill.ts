import { defineController, isStoreError, job, podLifecycle, type ReconcileContext, type ReconcileResult, type StoredObject, type WorldView } from '../../src/index.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { jobComplete, jobFailed, shortHash } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `Backfill` rewrites a table with a Job of a fixed name (`<name>-backfill`); two backfills of
 * one table must never run at once. A changed spec replaces the Job with a **Foreground**
 * deletion (controller-runtime's `client.PropagationPolicy(metav1.DeletePropagationForeground)`):
 * the old Job stays, terminating with the `foregroundDeletion` finalizer, until the garbage
 * collector has removed its Pods, so for its own replacements "the Job is gone" means "its Pods
 * are gone". The new Job is created only once a live read finds no Job; a create that still meets
 * the terminating one gets AlreadyExists and waits. A finalizer on the Backfill does the same when
 * it is deleted (found by the corpus gate: a recreation fault, the user's Background deletion, two
 * backfills at once 8 ms in). And since anyone may delete the Job with kubectl's default policy
 * (Background: the Job is gone at once, its Pods a little later), it also waits while unfinished
 * Pods of that Job name are left (found by the hunt, seed 3: a drift deletion of the Job). The
 * spec a Job runs is recorded in an annotation.
 *
 * Its buggy twin deletes with the default (Background) policy and creates the next Job once the
 * old one is gone, so on every spec change the new backfill starts while the collector has not
 * yet removed the old Pods: the invariant below. The correct one brings histories the store did
 * not produce before it ran Foreground as kube-controller-manager's collector does (its own Job
 * terminating under a finalizer it did not add, creates answered AlreadyExists while the collector
 * removes the Pods): the corpus checks the faults and oracles judge them right.
 */
export const BACKFILL = 'Backfill';

interface BackfillSpec {
  table: string;
  image: string;
}
interface BackfillStatus {
  phase?: string;
  doneHash?: string;
  observedGeneration?: number;
}

const HASH = 'backfill.example.com/spec-hash';
const FINALIZER = 'backfill.example.com/exclusive';
/** A backfill runs for 8 s (the pod lifecycle's run time): long enough that a new spec usually meets one running. */
const RUN_MS = 'steadystate.dev/run-ms';

/** Not finished (phase neither Succeeded nor Failed). */
const running = (p: StoredObject): boolean => p.status['phase'] !== 'Succeeded' && p.status['phase'] !== 'Failed';

function backfillJob(b: StoredObject<BackfillSpec, BackfillStatus>, name: string, hash: string) {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: b.metadata.namespace, labels: { backfill: b.metadata.name }, annotations: { [HASH]: hash }, ownerReferences: [controllerRef(b)] },
    spec: { backoffLimit: 1, template: { metadata: { annotations: { [RUN_MS]: '8000' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'backfill', image: b.spec.image, args: ['backfill', `--table=${b.spec.table}`] }] } } },
  };
}

function makeReconcile(careful: boolean) {
  const policy = careful ? 'Foreground' : 'Background';
  return async (ctx: ReconcileContext): Promise<ReconcileResult> => {
    const b = await ctx.client.tryGet<BackfillSpec, BackfillStatus>(BACKFILL, ctx.key, { live: true });
    if (!b) return;
    const ns = b.metadata.namespace;
    const name = `${b.metadata.name}-backfill`;
    let j = await ctx.client.tryGet('Job', { namespace: ns, name }, { live: true });
    if (b.metadata.deletionTimestamp !== undefined) {
      // a Backfill deleted (and maybe made again under its name) must not leave its backfill running beside the next one
      if (j && controlledBy(j, b)) {
        await deleteJob(ctx, j, policy);
        return { requeueAfter: 500 };
      }
      await removeFinalizer(ctx, b, FINALIZER);
      return;
    }
    if (await addFinalizer(ctx, b, FINALIZER)) return; // its update brings it back
    const hash = shortHash(`${b.spec.image}\u0000${b.spec.table}`);
    if (j && !controlledBy(j, b)) return { requeueAfter: 1000 }; // an old Backfill's: the collector removes it
    if (j && (j.metadata.annotations[HASH] !== hash || j.metadata.deletionTimestamp !== undefined)) {
      await deleteJob(ctx, j, policy);
      // its Pods may still run: the next backfill waits until the old Job is gone (under Foreground, that is when its Pods are)
      await writeStatus(ctx, b, { phase: 'Replacing', ...(b.status.doneHash !== undefined ? { doneHash: b.status.doneHash } : {}), observedGeneration: b.metadata.generation });
      return { requeueAfter: 500 };
    }
    if (!j) {
      // a Job someone else deleted (kubectl's default is Background) is gone before its Pods are
      if (careful && (await ctx.client.list('Pod', { namespace: ns, labelSelector: `job-name=${name}`, live: true })).some(running)) return { requeueAfter: 500 };
      try {
        j = await ctx.client.create(backfillJob(b, name, hash));
      } catch (err) {
        if (isStoreError(err, 'AlreadyExists')) return { requeueAfter: 500 }; // the old Job is still terminating
        throw err;
      }
    }
    const done = jobComplete(j);
    const doneHash = done ? hash : b.status.doneHash;
    await writeStatus(ctx, b, { phase: done ? 'Done' : jobFailed(j) ? 'Failed' : 'Running', ...(doneHash !== undefined ? { doneHash } : {}), observedGeneration: b.metadata.generation });
    return undefined;
  };
}

/** Deletes the Job (that very one: a uid precondition) unless it is already terminating. */
async function deleteJob(ctx: ReconcileContext, j: StoredObject, policy: 'Foreground' | 'Background'): Promise<void> {
  if (j.metadata.deletionTimestamp !== undefined) return;
  try {
    await ctx.client.delete('Job', { namespace: j.metadata.namespace, name: j.metadata.name }, { propagationPolicy: policy, preconditions: { uid: j.metadata.uid } });
  } catch (err) {
    if (!isStoreError(err, 'NotFound') && !isStoreError(err, 'Conflict')) throw err;
  }
}

/** At most one Job's unfinished Pods per backfill (Pods of one Job share `controller-uid`). */
function oneBackfillAtATime(view: WorldView): boolean | string {
  const byJob = new Map<string, Set<string>>();
  for (const p of view.list('Pod')) {
    const jobName = p.metadata.labels['job-name'];
    const uid = p.metadata.labels['controller-uid'];
    if (jobName === undefined || uid === undefined || !running(p)) continue;
    const s = byJob.get(jobName) ?? new Set<string>();
    s.add(uid);
    byJob.set(jobName, s);
    if (s.size > 1) return `Pods of ${s.size} Jobs named ${jobName} are running at once`;
  }
  return true;
}

export const backfillController = defineController({ name: 'backfill', for: BACKFILL, owns: ['Job'], resyncPeriodMs: RESYNC_MS, reconcile: makeReconcile(true) });
/** Replaces the Job with a Background deletion and creates the next once the Job is gone: its Pods may not be. */
export const backfillControllerBackground = defineController({ name: 'backfill', for: BACKFILL, owns: ['Job'], resyncPeriodMs: RESYNC_MS, reconcile: makeReconcile(false) });

export const exclusiveBackfill: FalsePositiveCase = {
  name: 'exclusive-backfill',
  description: 'a Backfill replaces its Job with a Foreground deletion and creates the next one only once the old Job (so its Pods) is gone',
  controllers: [backfillController],
  options: {
    objects: { kind: BACKFILL, name: 'orders', spec: [{ table: 'orders', image: 'backfill:1' }, { table: 'orders', image: 'backfill:2' }, { table: 'orders_v2', image: 'backfill:2' }] },
    environment: [job, podLifecycle],
  },
  properties: [...podEndStateProperties(), safetyInvariants({ invariants: { 'one backfill of a table at a time': oneBackfillAtATime } })],
  buggy: {
    controllers: [backfillControllerBackground],
    caughtBy: ['safety-invariants'],
    why: 'it deletes the old Job with the default Background policy and creates the next once the Job is gone, not its Pods: the new Job starts while the old backfill still runs',
    // the test's seed: the CI's twin test finds it at run 2 (the seed before took 68; bench/hunt-fp-rate.ts measures how often it shows)
    seed: 2,
  },
};
