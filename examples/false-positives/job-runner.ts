import { defineController, job, podLifecycle, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { jobComplete, jobFailed } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `RunRequest` asks for one run of `spec.image` under the id `spec.runId` (a CI system's
 * PipelineRun, an on-demand report run): the controller makes exactly one Job for it, named by the
 * server (`metadata.generateName: <request>-`, as Argo and Tekton name their runs' children), found
 * again by its labels (the request's name, the run id) and its controller ownerReference, and
 * records the Job's name and phase in status. A new run id or image is a new run: the Job of the
 * superseded run is deleted (its Pods with it) and a fresh one made.
 *
 * A generated name gives no AlreadyExists to fall back on: a second create is a second Job. So
 * the Jobs are listed live (controller-runtime's API reader) right before a create, never from the
 * cache: a cache that has not yet seen the Job made a moment ago (its event delayed or lost, an
 * informer restarted on a lagging replica), or a crash between the create and the status write,
 * would otherwise run the same job twice. And should two Jobs of the same run exist anyway (two
 * leaders overlapping, a create whose response was lost and retried by the client), the oldest is
 * kept (creationTimestamp, then name: the same choice whatever order the list comes in) and the
 * others deleted with a uid precondition.
 *
 * Its buggy twin looks for the Job in its informer cache before creating, as the first version of
 * many such controllers does: whatever makes it reconcile before its cache shows the Job it just
 * made creates a second one, and the run runs twice.
 */
export const RUN_REQUEST = 'RunRequest';
const REQUEST_LABEL = 'runs.example.com/request';
const RUN_ID_LABEL = 'runs.example.com/run-id';

interface RunSpec {
  runId: string;
  image: string;
}
interface RunStatus {
  runId?: string;
  jobName?: string;
  phase?: 'Running' | 'Succeeded' | 'Failed';
  observedGeneration?: number;
}

const imageOf = (j: StoredObject): string | undefined => ((j.spec['template'] as { spec?: { containers?: { image?: string }[] } } | undefined)?.spec?.containers ?? [])[0]?.image;
const oldestFirst = (a: StoredObject, b: StoredObject): number => a.metadata.creationTimestamp.localeCompare(b.metadata.creationTimestamp) || a.metadata.name.localeCompare(b.metadata.name);

function define(mistake: 'none' | 'cached-list') {
  async function reconcile(ctx: ReconcileContext): Promise<void> {
    const rr = await ctx.client.tryGet<RunSpec, RunStatus>(RUN_REQUEST, ctx.key, { live: true });
    if (!rr || rr.metadata.deletionTimestamp !== undefined) return;
    const ns = rr.metadata.namespace;
    // BUG (cached-list): the informer's view decides whether the run's Job exists
    const owned = (await ctx.client.list('Job', { namespace: ns, labelSelector: `${REQUEST_LABEL}=${rr.metadata.name}`, live: mistake === 'none' })).filter((j) => controlledBy(j, rr) && j.metadata.deletionTimestamp === undefined);
    const current = (j: StoredObject) => j.metadata.labels[RUN_ID_LABEL] === rr.spec.runId && imageOf(j) === rr.spec.image;
    // superseded runs: their Jobs (and Pods) go
    for (const j of owned.filter((x) => !current(x))) await deleteIfPresent(ctx, 'Job', { namespace: ns, name: j.metadata.name }, { uid: j.metadata.uid });
    const mine = owned.filter(current).sort(oldestFirst);
    // duplicates of this run: the oldest stays
    if (mistake === 'none') for (const j of mine.slice(1)) await deleteIfPresent(ctx, 'Job', { namespace: ns, name: j.metadata.name }, { uid: j.metadata.uid });
    let run = mine[0];
    if (!run) {
      run = await ctx.client.create({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { generateName: `${rr.metadata.name}-`, namespace: ns, labels: { [REQUEST_LABEL]: rr.metadata.name, [RUN_ID_LABEL]: rr.spec.runId }, ownerReferences: [controllerRef(rr)] },
        spec: { backoffLimit: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'run', image: rr.spec.image, env: [{ name: 'RUN_ID', value: rr.spec.runId }] }] } } },
      });
    }
    const phase = jobComplete(run) ? 'Succeeded' : jobFailed(run) ? 'Failed' : 'Running';
    await writeStatus(ctx, rr, { runId: rr.spec.runId, jobName: run.metadata.name, phase, observedGeneration: rr.metadata.generation });
  }
  return defineController({ name: 'run-request', for: RUN_REQUEST, owns: ['Job'], leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile });
}

export const runRequestController = define('none');

export const jobRunner: FalsePositiveCase = {
  name: 'job-runner',
  description: 'a RunRequest gets exactly one Job with a server-generated name, found again by label and ownerReference: listed live before each create, duplicates deleted oldest-first-kept, superseded runs replaced',
  controllers: [runRequestController],
  options: {
    objects: { kind: RUN_REQUEST, name: 'nightly', spec: [{ runId: 'r1', image: 'report:1' }, { runId: 'r2', image: 'report:1' }, { runId: 'r1', image: 'report:2' }] },
    environment: [job, podLifecycle],
  },
  properties: podEndStateProperties(),
  buggy: {
    controllers: [define('cached-list')],
    caughtBy: ['same-end-state', 'no-extra-destructive-actions', 'no-duplicate-side-effects'],
    why: 'it looks for the run\'s Job in its cache before creating one with a generated name: a reconcile before the cache shows the Job just made (a delayed or lost event, a restarted informer) creates a second Job, and the run runs twice',
  },
};
