import { defineController, isStoreError, podLifecycle, type JsonObject, type NewObject, type ReconcileContext, type ReconcileResult, type StoredObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import { apply, deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * Job queueing as Kueue does it. A cluster-scoped `ClusterQueue` has a nominal quota of cpu;
 * namespaced `LocalQueue`s point at it; a `TrainingJob` (a Kueue-integrated job kind, its
 * `spec.queueName` the LocalQueue) gets a `Workload` made for it by the job integration
 * (`job-<name>`, owned by the job: cpu, priority, queueName), and runs (its Pod is made) only once
 * the Workload is admitted.
 *
 * The `kueue-scheduler` reconciles each ClusterQueue: it admits its pending Workloads in priority
 * order, then creation order (BestEffortFIFO: one that does not fit lets a smaller one behind it
 * through; no preemption), while the quota allows. Quota is accounted in the ClusterQueue's status,
 * `status.reservations` (`ns/name` → uid and cpu), and an admission first reserves there with an
 * updateStatus carrying the ClusterQueue's resourceVersion, and only then writes the Workload's
 * `status.admission` and its QuotaReserved and Admitted conditions (with the Workload's
 * resourceVersion). Two admissions racing for the last cpu: one reservation answers 409 and its
 * reconcile looks again. A crash between the two writes is resumed: a reserved Workload not yet
 * admitted is admitted. A Workload that is Finished or gone (its uid no longer listed live: uids
 * are never reused) releases its reservation. An admitted, unfinished Workload naming the queue
 * but missing from the reservations is counted again (the queue deleted and made again under its
 * name: Kueue rebuilds its usage from the admitted Workloads, not from the queue object).
 *
 * The `trainingjob` controller (Kueue's jobframework reconciler for the kind) reads everything
 * live: it keeps the Workload (priority follows the job's, as a WorkloadPriorityClass change
 * does), creates the job's Pod once the Workload is admitted (again if the Pod was evicted), stops
 * the job (deletes its Pod) when the Workload is no longer admitted (deleted and made again), and
 * once the Pod has ended marks the Workload Finished, which releases the quota. Deleting a job
 * lets owner references collect its Workload and Pod.
 *
 * The case's own oracle, `quota-respected` (safety-invariants): at every write, the cpu of the
 * admitted, unfinished Workloads naming a ClusterQueue is at most its nominal quota.
 *
 * Its buggy twin's scheduler takes the usage from the ClusterQueue its informer cache shows (the
 * reservations there are the truth to it) and writes the reservations without a precondition: a
 * reconcile before the cache shows the previous admission (an event late or lost, a relist from a
 * lagging replica) finds the quota free again and admits a second Workload over it.
 */
export const CLUSTER_QUEUE = 'ClusterQueue';
export const LOCAL_QUEUE = 'LocalQueue';
export const WORKLOAD = 'Workload';
export const TRAINING_JOB = 'TrainingJob';
const JOB_LABEL = 'kueue.x-k8s.io/job-name';
const RUN_MS = 'steadystate.dev/run-ms';

interface ClusterQueueSpec {
  nominalQuota: { cpu: number };
}
interface Reservation {
  uid: string;
  cpu: number;
}
interface ClusterQueueStatus {
  reservations?: Record<string, Reservation>;
  usage?: { cpu: number };
  admittedWorkloads?: number;
  pendingWorkloads?: number;
  observedGeneration?: number;
}
interface LocalQueueSpec {
  clusterQueue: string;
}
interface WorkloadSpec {
  queueName: string;
  priority: number;
  cpu: number;
}
interface WorkloadStatus {
  admission?: { clusterQueue: string; cpu: number };
  conditions?: Condition[];
}
interface JobSpec {
  queueName: string;
  priority: number;
  cpu: number;
  image: string;
  durationMs: number;
}
interface JobStatus {
  phase?: 'Suspended' | 'Running' | 'Succeeded' | 'Failed';
  workload?: string;
  observedGeneration?: number;
}
type Workload = StoredObject<WorkloadSpec, WorkloadStatus>;
type ClusterQueue = StoredObject<ClusterQueueSpec, ClusterQueueStatus>;

const alive = (o: { metadata: { deletionTimestamp?: string | undefined } }) => o.metadata.deletionTimestamp === undefined;
const conditionTrue = (w: { status: WorkloadStatus }, type: string) => (w.status.conditions ?? []).some((c) => c.type === type && c.status === 'True');
const admitted = (w: { status: WorkloadStatus }) => conditionTrue(w, 'Admitted') && w.status.admission !== undefined;
const finished = (w: { status: WorkloadStatus }) => conditionTrue(w, 'Finished');
const keyOfObj = (o: StoredObject<unknown, unknown>) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const byPriorityThenAge = (a: Workload, b: Workload) => b.spec.priority - a.spec.priority || a.metadata.creationTimestamp.localeCompare(b.metadata.creationTimestamp) || keyOfObj(a).localeCompare(keyOfObj(b));

/** The ClusterQueue a Workload's LocalQueue points at, if that LocalQueue exists. */
function clusterQueueOf(w: { metadata: { namespace?: string | undefined }; spec: WorkloadSpec }, localQueues: readonly StoredObject[]): string | undefined {
  const lq = localQueues.find((q) => q.metadata.namespace === w.metadata.namespace && q.metadata.name === w.spec.queueName && alive(q));
  const cq = lq?.spec['clusterQueue'];
  return typeof cq === 'string' ? cq : undefined;
}

function defineScheduler(mistake: 'none' | 'cached-usage') {
  async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    // BUG (cached-usage): the informer's ClusterQueue (its usage) decides, and the reservation is written without a precondition
    const cq = await ctx.client.tryGet<ClusterQueueSpec, ClusterQueueStatus>(CLUSTER_QUEUE, ctx.key, { live: mistake === 'none' });
    if (!cq || !alive(cq)) return undefined;
    const name = cq.metadata.name;
    const quota = cq.spec.nominalQuota.cpu;
    const localQueues = await ctx.client.list(LOCAL_QUEUE, { live: true });
    const workloads = (await ctx.client.list<WorkloadSpec, WorkloadStatus>(WORKLOAD, { live: true })).filter((w) => clusterQueueOf(w, localQueues) === name || w.status.admission?.clusterQueue === name);
    const byKey = new Map(workloads.map((w) => [keyOfObj(w), w]));

    // the reservations: released for Workloads gone (by uid) or finished, kept for the others
    const reservations: Record<string, Reservation> = {};
    for (const [key, r] of Object.entries(cq.status.reservations ?? {})) {
      const w = byKey.get(key);
      if (w && w.metadata.uid === r.uid && !finished(w)) reservations[key] = r;
    }
    // admitted elsewhere than in these reservations (the queue made again under its name): counted
    // again (BUG (cached-usage): the cached status's usage is taken as the truth instead)
    if (mistake === 'none') for (const w of workloads) if (admitted(w) && !finished(w) && w.status.admission?.clusterQueue === name && reservations[keyOfObj(w)] === undefined) reservations[keyOfObj(w)] = { uid: w.metadata.uid, cpu: w.status.admission.cpu };
    let used = Object.values(reservations).reduce((n, r) => n + r.cpu, 0);

    // pending, in priority then creation order; one that does not fit lets smaller ones by
    const pending = workloads.filter((w) => alive(w) && !admitted(w) && !finished(w) && clusterQueueOf(w, localQueues) === name && reservations[keyOfObj(w)]?.uid !== w.metadata.uid).sort(byPriorityThenAge);
    const waiting: Workload[] = [];
    for (const w of pending) {
      if (used + w.spec.cpu <= quota) {
        reservations[keyOfObj(w)] = { uid: w.metadata.uid, cpu: w.spec.cpu };
        used += w.spec.cpu;
      } else waiting.push(w);
    }
    const status: ClusterQueueStatus = {
      reservations,
      usage: { cpu: used },
      admittedWorkloads: Object.keys(reservations).length,
      pendingWorkloads: waiting.length,
      observedGeneration: cq.metadata.generation,
    };
    try {
      // the buggy twin writes without a real precondition: it takes the live resourceVersion just
      // before writing what it decided from its cache (a custom resource allows no unconditional
      // update, of its status either: an empty resourceVersion is a 422)
      const fresh = mistake === 'none' ? cq : await ctx.client.tryGet(CLUSTER_QUEUE, ctx.key, { live: true });
      if (!fresh) return undefined;
      await writeStatus(ctx, { ...cq, metadata: { ...cq.metadata, resourceVersion: fresh.metadata.resourceVersion } }, status);
    } catch (err) {
      // another admission (or release) got there first: look again
      if (isStoreError(err, 'Conflict')) return { requeue: true };
      throw err;
    }

    // then the Workloads: admitted once reserved (also one reserved before a crash), or told why they wait
    const now = ctx.clock.now();
    for (const [key, r] of Object.entries(reservations)) {
      const w = byKey.get(key);
      if (!w || w.metadata.uid !== r.uid || admitted(w)) continue;
      let conditions = setCondition(w.status.conditions, { type: 'QuotaReserved', status: 'True', reason: 'QuotaReserved', message: `Quota reserved in ClusterQueue ${name}`, observedGeneration: w.metadata.generation }, now);
      conditions = setCondition(conditions, { type: 'Admitted', status: 'True', reason: 'Admitted', message: 'The workload is admitted', observedGeneration: w.metadata.generation }, now);
      await writeWorkloadStatus(ctx, w, { ...w.status, admission: { clusterQueue: name, cpu: r.cpu }, conditions });
    }
    for (const w of waiting) {
      const message = w.spec.cpu > quota ? `couldn't assign flavors: requests ${w.spec.cpu} cpu, more than the nominal quota ${quota} of ClusterQueue ${name}` : `couldn't assign flavors: insufficient unused quota in ClusterQueue ${name}`;
      await writeWorkloadStatus(ctx, w, { ...w.status, conditions: setCondition(w.status.conditions, { type: 'QuotaReserved', status: 'False', reason: 'Pending', message, observedGeneration: w.metadata.generation }, now) });
    }
    return undefined;
  }
  return defineController({
    name: 'kueue-scheduler',
    for: CLUSTER_QUEUE,
    watches: [
      { kind: WORKLOAD, map: (w, c) => queuesOfWorkload(w, c.list(LOCAL_QUEUE)) },
      { kind: LOCAL_QUEUE, map: (q) => (typeof q.spec['clusterQueue'] === 'string' ? [q.spec['clusterQueue']] : []) },
    ],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile,
  });
}

/** The ClusterQueues a Workload event concerns: the one its LocalQueue points at and the one that admitted it. */
function queuesOfWorkload(w: StoredObject, localQueues: readonly StoredObject[]): string[] {
  const out = new Set<string>();
  const cq = clusterQueueOf(w as unknown as Workload, localQueues);
  if (cq !== undefined) out.add(cq);
  const admittedBy = (w.status['admission'] as { clusterQueue?: unknown } | undefined)?.clusterQueue;
  if (typeof admittedBy === 'string') out.add(admittedBy);
  return [...out];
}

/** The Workload's status with its resourceVersion: a Workload changed meanwhile (or gone) is looked at again by the next reconcile. */
async function writeWorkloadStatus(ctx: ReconcileContext, w: Workload, status: WorkloadStatus): Promise<void> {
  try {
    await writeStatus(ctx, w, status);
  } catch (err) {
    if (!isStoreError(err, 'Conflict') && !isStoreError(err, 'NotFound')) throw err;
  }
}

const podPhase = (p: StoredObject | undefined) => (typeof p?.status['phase'] === 'string' ? p.status['phase'] : undefined);

/** The job integration: a Workload per TrainingJob, its Pod only while the Workload is admitted, Finished once the Pod ended. */
async function reconcileJob(ctx: ReconcileContext): Promise<ReconcileResult> {
  const job = await ctx.client.tryGet<JobSpec, JobStatus>(TRAINING_JOB, ctx.key, { live: true });
  if (!job || !alive(job)) return undefined;
  const ns = job.metadata.namespace;
  const wlName = `job-${job.metadata.name}`;
  const podName = `${job.metadata.name}-0`;
  let wl = await ctx.client.tryGet<WorkloadSpec, WorkloadStatus>(WORKLOAD, { namespace: ns, name: wlName }, { live: true });
  if (wl && !controlledBy(wl, job)) return { requeueAfter: 1000 }; // a Workload of an earlier job of this name: the garbage collector removes it
  const wlSpec: WorkloadSpec = { queueName: job.spec.queueName, priority: job.spec.priority, cpu: job.spec.cpu };
  if (!wl || wl.spec.priority !== job.spec.priority) {
    // made, or its priority changed (a WorkloadPriorityClass change reaches the Workload whatever its state)
    wl = (await apply(ctx, { apiVersion: 'kueue.x-k8s.io/v1beta1', kind: WORKLOAD, metadata: { name: wlName, namespace: ns, labels: { [JOB_LABEL]: job.metadata.name }, ownerReferences: [controllerRef(job)] }, spec: wlSpec as unknown as JsonObject })) as unknown as Workload;
  }
  let pod = await ctx.client.tryGet('Pod', { namespace: ns, name: podName }, { live: true });
  if (pod && !controlledBy(pod, job)) return { requeueAfter: 1000 };
  const ended = podPhase(pod) === 'Succeeded' || podPhase(pod) === 'Failed';
  let phase: JobStatus['phase'];
  if (finished(wl)) {
    phase = conditionOf(wl, 'Finished')?.reason === 'Failed' ? 'Failed' : 'Succeeded';
  } else if (pod && ended) {
    // the job is done: the Workload is Finished, which releases its quota
    const ok = podPhase(pod) === 'Succeeded';
    await writeStatus(ctx, wl, { ...wl.status, conditions: setCondition(wl.status.conditions, { type: 'Finished', status: 'True', reason: ok ? 'Succeeded' : 'Failed', message: ok ? 'Job finished successfully' : 'Job failed', observedGeneration: wl.metadata.generation }, ctx.clock.now()) });
    phase = ok ? 'Succeeded' : 'Failed';
  } else if (admitted(wl)) {
    if (!pod) pod = await createPod(ctx, job, podName);
    phase = 'Running';
  } else {
    // not (or no longer) admitted: the job is suspended, a Pod of it stopped
    if (pod) await deleteIfPresent(ctx, 'Pod', { namespace: ns, name: podName }, { uid: pod.metadata.uid });
    phase = 'Suspended';
  }
  await writeStatus(ctx, job, { phase, workload: wlName, observedGeneration: job.metadata.generation });
  return undefined;
}

function conditionOf(w: { status: WorkloadStatus }, type: string): Condition | undefined {
  return (w.status.conditions ?? []).find((c) => c.type === type);
}

async function createPod(ctx: ReconcileContext, job: StoredObject<JobSpec, JobStatus>, name: string): Promise<StoredObject> {
  const pod: NewObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: job.metadata.namespace, labels: { [JOB_LABEL]: job.metadata.name }, annotations: { [RUN_MS]: String(job.spec.durationMs) }, ownerReferences: [controllerRef(job)] },
    // OnFailure: a crashed trainer restarts in place, as a batch Job's Pod template says
    spec: { restartPolicy: 'OnFailure', containers: [{ name: 'trainer', image: job.spec.image, resources: { requests: { cpu: String(job.spec.cpu) } } }] },
  };
  try {
    return await ctx.client.create(pod);
  } catch (err) {
    if (!isStoreError(err, 'AlreadyExists')) throw err;
    return ctx.client.get('Pod', { namespace: job.metadata.namespace, name }, { live: true });
  }
}

export const trainingJobController = defineController({
  name: 'trainingjob',
  for: TRAINING_JOB,
  owns: [WORKLOAD, 'Pod'],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcileJob,
});
export const kueueSchedulerController = defineScheduler('none');

/** Admitted usage never exceeds the nominal quota: the cpu of admitted, unfinished Workloads naming a ClusterQueue, at every write. */
export const quotaRespected = safetyInvariants({
  invariants: {
    'admitted cpu within the nominal quota': (view) => {
      for (const cq of view.list(CLUSTER_QUEUE) as unknown as ClusterQueue[]) {
        const mine = (view.list(WORKLOAD) as unknown as Workload[]).filter((w) => admitted(w) && !finished(w) && w.status.admission?.clusterQueue === cq.metadata.name);
        const used = mine.reduce((n, w) => n + (w.status.admission?.cpu ?? 0), 0);
        if (used > cq.spec.nominalQuota.cpu) return `ClusterQueue ${cq.metadata.name}: ${used} cpu admitted (${mine.map(keyOfObj).join(', ')}), nominal quota ${cq.spec.nominalQuota.cpu}`;
      }
      return true;
    },
  },
});

/** Settled: no Workload that fits waits while its ClusterQueue has room for it, every job's phase follows its Workload and Pod, every queue's status counts its reservations. */
export function queuesSettled(view: WorldView): true | string {
  const localQueues = view.list(LOCAL_QUEUE);
  const workloads = view.list(WORKLOAD) as unknown as Workload[];
  for (const cq of view.list(CLUSTER_QUEUE) as unknown as ClusterQueue[]) {
    const mine = workloads.filter((w) => admitted(w) && !finished(w) && w.status.admission?.clusterQueue === cq.metadata.name);
    const used = mine.reduce((n, w) => n + (w.status.admission?.cpu ?? 0), 0);
    if ((cq.status.usage?.cpu ?? 0) !== used) return `ClusterQueue ${cq.metadata.name} reports ${cq.status.usage?.cpu ?? 0} cpu used, its admitted Workloads hold ${used}`;
    const blocked = workloads.find((w) => alive(w) && !admitted(w) && !finished(w) && clusterQueueOf(w, localQueues) === cq.metadata.name && used + w.spec.cpu <= cq.spec.nominalQuota.cpu);
    if (blocked) return `Workload ${keyOfObj(blocked)} (${blocked.spec.cpu} cpu) waits while ClusterQueue ${cq.metadata.name} has ${cq.spec.nominalQuota.cpu - used} free`;
  }
  for (const job of view.list(TRAINING_JOB) as unknown as StoredObject<JobSpec, JobStatus>[]) {
    if (!alive(job)) continue;
    const wl = workloads.find((w) => w.metadata.namespace === job.metadata.namespace && w.metadata.name === `job-${job.metadata.name}`);
    if (!wl) return `TrainingJob ${keyOfObj(job)} has no Workload`;
    const want = finished(wl) ? (conditionOf(wl, 'Finished')?.reason === 'Failed' ? 'Failed' : 'Succeeded') : admitted(wl) ? 'Running' : 'Suspended';
    if (job.status.phase !== want || job.status.observedGeneration !== job.metadata.generation) return `TrainingJob ${keyOfObj(job)} reports ${job.status.phase ?? 'nothing'}, its Workload says ${want}`;
  }
  return true;
}

const clusterQueue = (name: string, cpu: number): NewObject => ({ apiVersion: 'kueue.x-k8s.io/v1beta1', kind: CLUSTER_QUEUE, metadata: { name }, spec: { nominalQuota: { cpu } } });
const localQueue = (namespace: string, name: string, cq: string): NewObject => ({ apiVersion: 'kueue.x-k8s.io/v1beta1', kind: LOCAL_QUEUE, metadata: { name, namespace }, spec: { clusterQueue: cq } });
const trainingJob = (cpu: number, priority: number, durationMs: number, queueName = 'training'): JsonObject => ({ queueName, priority, cpu, image: 'trainer:1', durationMs });

export const queueAdmission: FalsePositiveCase = {
  name: 'queue-admission',
  description: 'Kueue-style job queueing: a ClusterQueue with a cpu quota admits pending Workloads (one per TrainingJob) in priority then creation order, reserving quota in its status with a resourceVersion precondition before admitting; the job integration runs a job\'s Pod once admitted and finishes the Workload to release its quota',
  controllers: [kueueSchedulerController, trainingJobController],
  options: {
    // a queue of 4 cpu shared by two teams; a 3-cpu job of team-a from the start
    story: {
      objects: [
        clusterQueue('research', 4),
        localQueue('team-a', 'training', 'research'),
        localQueue('team-b', 'training', 'research'),
        { apiVersion: 'training.example.com/v1', kind: TRAINING_JOB, metadata: { name: 'resnet', namespace: 'team-a' }, spec: trainingJob(3, 0, 8000) },
      ],
      actions: [],
    },
    // generated: jobs of both teams competing for the rest of the quota; a priority raised while
    // waiting reorders the queue; one bigger than the whole quota waits for good
    objects: [
      { kind: TRAINING_JOB, names: ['bert'], namespace: 'team-b', spec: [trainingJob(2, 0, 2000), trainingJob(2, 10, 2000)] },
      { kind: TRAINING_JOB, names: ['gpt'], namespace: 'team-a', spec: [trainingJob(3, 5, 4000), trainingJob(3, 0, 4000)] },
      { kind: TRAINING_JOB, names: ['huge'], namespace: 'team-b', spec: [trainingJob(6, 0, 1000)] },
    ],
    // what a job asks for and where it queues are fixed once submitted (Kueue: a Workload's
    // podSets are immutable, the queue of a running job too); its priority may change
    validation: { immutable: { [TRAINING_JOB]: ['spec.queueName', 'spec.cpu', 'spec.image', 'spec.durationMs'], [WORKLOAD]: ['spec.queueName', 'spec.cpu'] } },
    environment: [podLifecycle],
    maxObjects: 3,
  },
  properties: [quotaRespected, convergence({ converged: queuesSettled }), ...podEndStateProperties()],
  buggy: {
    controllers: [defineScheduler('cached-usage'), trainingJobController],
    caughtBy: ['safety-invariants'],
    // a job that waits while another holds the quota
    world: { maxObjects: 3, maxActions: 3 },
    why: 'its scheduler admits from the usage its informer\'s ClusterQueue shows and writes the reservation without a precondition: a reconcile before the cache shows the previous admission finds the quota free again and admits a second Workload over it',
  },
};
