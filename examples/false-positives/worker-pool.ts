import { defineController, podLifecycle, type Client, type ReconcileContext, type ReconcileResult, type StoredObject } from '../../src/index.js';
import { deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { podReady } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `WorkerPool` keeps `replicas` interchangeable worker Pods (generated names, no ReplicaSet in
 * between) the way kube-controller-manager's ReplicaSet controller does: it reads its Pods from the
 * informer cache, not live, and guards against the cache being behind its own writes with
 * *expectations*, kept in memory per controller instance (a restart forgets them, and relists):
 * the uids it created and deleted. Until the cache shows every create and no longer shows a
 * deletion it does not act again, so it never creates twice for one shortfall; an expectation
 * that is never observed (a lost watch event) expires after a TTL, as ControllerExpectations do
 * after five minutes. Scale-down deletes not-ready Pods first, then the newest, each with a uid
 * precondition; a new image is set on running Pods in place (the one Pod field that may change, as
 * OpenKruise's in-place updates do), so which Pods exist never depends on when the image changed.
 * A known false alarm of no-extra-destructive-actions (PENDING_ORACLE_FIXES in
 * test/helpers/false-positives.ts): like the real ReplicaSet controller, it makes a surplus Pod
 * when a create timed out but was applied, or its cache stayed behind longer than the TTL, and
 * deletes the surplus once it sees it.
 * Found writing it (a harness bug, fixed): an informer whose re-watch ended again during the
 * replay the store sends at once kept the dead stream until the settle phase relisted, so its
 * cache froze for the whole fault window.
 */
export const WORKER_POOL = 'WorkerPool';
/** Expectations older than this are given up on (kube-controller-manager: 5 minutes; compressed like resync). */
const EXPECTATIONS_TTL_MS = 8_000;

interface PoolSpec {
  replicas: number;
  image: string;
}
interface PoolStatus {
  replicas?: number;
  readyReplicas?: number;
  observedGeneration?: number;
}
type Pool = StoredObject<PoolSpec, PoolStatus>;

/** What one controller instance expects its cache to show for one pool (its uid: a recreated pool starts afresh). */
interface Expectations {
  pool: string;
  creates: Set<string>;
  deletes: Set<string>;
  at: number;
}
/** Per controller instance (a restart gets a new client, so it forgets, as a restarted process does). */
const memory = new WeakMap<Client, Map<string, Expectations>>();

function expectationsOf(ctx: ReconcileContext): Map<string, Expectations> {
  let m = memory.get(ctx.client);
  if (!m) memory.set(ctx.client, (m = new Map()));
  return m;
}

/** The cache has caught up with this instance's writes for the pool (or they are too old to wait for). */
function satisfied(e: Expectations | undefined, pool: Pool, cached: readonly StoredObject[], now: number): boolean {
  if (!e || e.pool !== pool.metadata.uid) return true;
  if (now - e.at >= EXPECTATIONS_TTL_MS) return true;
  const seen = new Set(cached.map((p) => p.metadata.uid));
  for (const uid of e.creates) if (!seen.has(uid)) return false;
  for (const uid of e.deletes) if (seen.has(uid)) return false;
  return true;
}

async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
  const pool = await ctx.client.tryGet<PoolSpec, PoolStatus>(WORKER_POOL, ctx.key);
  const memo = expectationsOf(ctx);
  if (!pool || pool.metadata.deletionTimestamp !== undefined) {
    memo.delete(ctx.key);
    return;
  }
  const ns = pool.metadata.namespace;
  const owned = (await ctx.client.list('Pod', { ...(ns !== undefined ? { namespace: ns } : {}), labelSelector: { matchLabels: { pool: pool.metadata.name } } })).filter((p) => controlledBy(p, pool));
  const now = ctx.clock.now();
  if (!satisfied(memo.get(ctx.key), pool, owned, now)) return { requeueAfter: EXPECTATIONS_TTL_MS };
  memo.delete(ctx.key);
  const live = owned.filter((p) => p.metadata.deletionTimestamp === undefined);
  const diff = live.length - pool.spec.replicas;
  const e: Expectations = { pool: pool.metadata.uid, creates: new Set(), deletes: new Set(), at: now };
  if (diff < 0) {
    memo.set(ctx.key, e);
    for (let i = 0; i < -diff; i++) {
      const pod = await ctx.client.create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { generateName: `${pool.metadata.name}-`, namespace: ns, labels: { pool: pool.metadata.name }, ownerReferences: [controllerRef(pool)] },
        spec: { containers: [{ name: 'worker', image: pool.spec.image }] },
      });
      e.creates.add(pod.metadata.uid);
    }
  } else if (diff > 0) {
    memo.set(ctx.key, e);
    // not-ready first, then the newest (the generated name breaks ties, so the choice never depends on list order)
    const order = [...live].sort((a, b) => Number(podReady(a)) - Number(podReady(b)) || b.metadata.creationTimestamp.localeCompare(a.metadata.creationTimestamp) || a.metadata.name.localeCompare(b.metadata.name));
    for (const p of order.slice(0, diff)) {
      e.deletes.add(p.metadata.uid);
      await deleteIfPresent(ctx, 'Pod', { namespace: ns, name: p.metadata.name }, { uid: p.metadata.uid });
    }
  }
  // in place: the container image of every Pod that stays (merge patch, the cache's version is enough)
  const staying = new Set([...live].filter((p) => !e.deletes.has(p.metadata.uid)));
  for (const p of staying) {
    const containers = (p.spec['containers'] ?? []) as { name: string; image?: string }[];
    if (containers[0]?.image !== pool.spec.image) await ctx.client.patch('Pod', { namespace: ns, name: p.metadata.name }, { spec: { containers: [{ name: 'worker', image: pool.spec.image }] } });
  }
  const ready = live.filter(podReady).length;
  await writeStatus(ctx, pool, { replicas: live.length, readyReplicas: ready, observedGeneration: pool.metadata.generation });
  return undefined;
}

export const workerPoolController = defineController({
  name: 'worker-pool',
  for: WORKER_POOL,
  owns: ['Pod'],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

export const workerPool: FalsePositiveCase = {
  name: 'worker-pool',
  description: "a WorkerPool keeps interchangeable Pods like kube-controller-manager's ReplicaSet controller: cached reads guarded by in-memory create/delete expectations that expire",
  controllers: [workerPoolController],
  options: {
    objects: { kind: WORKER_POOL, name: 'workers', spec: [{ replicas: 3, image: 'worker:1' }, { replicas: 1, image: 'worker:1' }, { replicas: 4, image: 'worker:2' }] },
    environment: [podLifecycle],
  },
  properties: podEndStateProperties(),
};
