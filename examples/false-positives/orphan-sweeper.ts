import { defineController, defineProperty, fakeRestService, type ReconcileContext, type ReconcileResult, type RunRecord, type StoredObject, type Verdict, type WorldView } from '../../src/index.js';
import { readDownstream } from '../../properties/_internals/downstream-state.js';
import { convergence } from '../../properties/convergence.js';
import { jsonApi, type Remote } from '../bug-zoo/shared/json-api.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { createFresh } from './_shared/create-fresh.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * Finalizer-less cleanup by a sweeper, as the AWS Load Balancer Controller's tag-based garbage
 * collection, Crossplane's orphan finders and Cloud Custodian's `mark-for-op` do it: a `Bucket`'s
 * controller (`bucket-provisioner`) keeps one storage bucket at a cloud API, tagged with the
 * Bucket's uid (`owner`), its `namespace/name` (`ownerName`) and the cluster (`cluster`), and adds
 * NO finalizer (a Bucket goes at once, its bucket stays behind: an orphan). A separate controller,
 * `bucket-sweeper`, for a `BucketSweeper` (one per cluster; it names the cluster tag and a grace
 * period), finds the cluster's buckets whose owner is gone and deletes them in two phases: it first
 * MARKS the bucket at the provider (`sweepAfter`: the virtual time from which it may go, now +
 * grace, the way Custodian tags a resource `maid_status: delete@<date>`), and deletes it only on a
 * later pass that finds it still orphaned once the mark is due. A bucket whose owner is there again
 * (a mark made in error, a tag edited back) is unmarked.
 *
 * "The owner is gone" is decided on a LIVE list of Buckets, taken AFTER the provider's list: a
 * bucket is made only by a reconcile that read its Bucket live first, so a bucket in the provider's
 * list has an owner that existed before the list, and a live list taken after it shows that owner
 * unless it was really deleted (a uid never comes back: an owner recreated under the same name is
 * another owner, and its bucket is another bucket). The informer cache is not asked: a Bucket
 * created a moment ago whose ADDED event is late, or lost until the next resync, is not in it, and
 * its bucket would look orphaned. The grace period is the margin a real sweeper keeps for what a
 * live list cannot see (a cloud API's eventually consistent listing, a person who wants to see
 * what will go): the mark is visible at the provider for `graceMs` before anything is deleted.
 * The sweeper runs every `intervalMs` (`requeueAfter`, sooner when a mark comes due) and on every
 * Bucket event (a deletion makes an orphan).
 *
 * Its buggy twin sweeps in one phase from its informer cache: a bucket whose owner its cache does
 * not show is deleted at once. A Bucket whose ADDED event was lost or is late has its bucket
 * deleted under it, and the provisioner makes another (a destroyed resource the fault-free run
 * kept).
 */
export const BUCKET = 'Bucket';
export const SWEEPER = 'BucketSweeper';
export const STORAGE_API = 'https://storage.example/v1';
const CLUSTER = 'prod-1';

interface BucketSpec {
  storageClass: string;
}
interface BucketStatus {
  bucketId?: string;
  observedGeneration?: number;
}
interface SweeperSpec {
  cluster: string;
  graceMs: number;
  intervalMs: number;
}
interface SweeperStatus {
  /** Orphans marked and not yet due. */
  pendingOrphans?: number;
  observedGeneration?: number;
}
interface CloudBucket {
  owner: string;
  ownerName: string;
  cluster: string;
  storageClass: string;
  /** The sweeper's mark: the virtual time from which the orphan may be deleted. */
  sweepAfter?: number | null;
}

const keyOf = (o: StoredObject<unknown, unknown>) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;

async function reconcileBucket(ctx: ReconcileContext): Promise<ReconcileResult> {
  const b = await ctx.client.tryGet<BucketSpec, BucketStatus>(BUCKET, ctx.key, { live: true });
  if (!b || b.metadata.deletionTimestamp !== undefined) return undefined; // no finalizer: its bucket is the sweeper's
  const api = jsonApi(ctx.fetch, STORAGE_API);
  const mine = await api.list<CloudBucket>('buckets', { owner: b.metadata.uid });
  let bucket: Remote<CloudBucket> | undefined = mine[0];
  if (!bucket) {
    // the key makes a create whose answer was lost (or a crash before the status write) make one bucket
    bucket = await createFresh<CloudBucket>(api, 'buckets', { owner: b.metadata.uid, ownerName: keyOf(b), cluster: CLUSTER, storageClass: b.spec.storageClass }, b.metadata.uid);
  } else if (bucket.storageClass !== b.spec.storageClass) {
    bucket = await api.patch<CloudBucket>('buckets', bucket.id, { storageClass: b.spec.storageClass });
  }
  await writeStatus(ctx, b, { bucketId: bucket.id, observedGeneration: b.metadata.generation });
  // a console edit is repaired on the next look
  return { requeueAfter: 30_000 };
}

export const bucketProvisioner = defineController({ name: 'bucket-provisioner', for: BUCKET, leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: reconcileBucket });

function defineSweeper(mistake: 'none' | 'cached-one-phase') {
  async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    const s = await ctx.client.tryGet<SweeperSpec, SweeperStatus>(SWEEPER, ctx.key, { live: true });
    if (!s || s.metadata.deletionTimestamp !== undefined) return undefined;
    const api = jsonApi(ctx.fetch, STORAGE_API);
    const now = ctx.clock.now();
    // the provider first, then the owners: an owner of a listed bucket existed before this list
    const buckets = await api.list<CloudBucket>('buckets', { cluster: s.spec.cluster });
    // BUG (cached-one-phase): the owners as the informer cache shows them
    const owners = new Set((await ctx.client.list<BucketSpec, BucketStatus>(BUCKET, { live: mistake === 'none' })).map((o) => o.metadata.uid));
    let pending = 0;
    let nextDue = Infinity;
    for (const bucket of buckets) {
      const mark = typeof bucket.sweepAfter === 'number' && Number.isFinite(bucket.sweepAfter) ? bucket.sweepAfter : undefined;
      if (owners.has(bucket.owner)) {
        // owned after all: unmark (a mark made in error, or an owner tag edited back)
        if (bucket.sweepAfter !== undefined && bucket.sweepAfter !== null) await api.patch<CloudBucket>('buckets', bucket.id, { sweepAfter: null });
        continue;
      }
      if (mistake === 'cached-one-phase') {
        await api.removeIfPresent('buckets', bucket.id);
        continue;
      }
      if (mark === undefined) {
        // phase one: mark it (a mark a person garbled counts as none: marked again, never deleted at once)
        const due = now + s.spec.graceMs;
        await api.patch<CloudBucket>('buckets', bucket.id, { sweepAfter: due });
        pending++;
        nextDue = Math.min(nextDue, due);
      } else if (now >= mark) {
        // phase two: still orphaned on this pass's live list, and due
        await api.removeIfPresent('buckets', bucket.id);
      } else {
        pending++;
        nextDue = Math.min(nextDue, mark);
      }
    }
    await writeStatus(ctx, s, { pendingOrphans: pending, observedGeneration: s.metadata.generation });
    const wait = Number.isFinite(nextDue) ? Math.max(100, Math.min(s.spec.intervalMs, nextDue - now + 1)) : s.spec.intervalMs;
    return { requeueAfter: wait };
  }
  return defineController({
    name: 'bucket-sweeper',
    for: SWEEPER,
    // a Bucket deleted (or made) anywhere: every sweeper has a look
    watches: [{ kind: BUCKET, map: (_b, read) => read.list(SWEEPER).map((x) => keyOf(x)) }],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile,
  });
}

export const bucketSweeper = defineSweeper('none');

/** Settled: every Bucket has its one bucket (of its class), no bucket of the cluster is orphaned, and nothing is left marked. */
function swept(view: WorldView): true | string {
  const buckets = view.downstream('storage', 'buckets') as unknown as Remote<CloudBucket>[];
  const owners = view.list(BUCKET) as unknown as StoredObject<BucketSpec, BucketStatus>[];
  for (const b of owners) {
    const mine = buckets.filter((x) => x.owner === b.metadata.uid);
    if (mine.length !== 1) return `Bucket ${keyOf(b)} has ${mine.length} buckets at the provider`;
    if (mine[0]!.storageClass !== b.spec.storageClass) return `Bucket ${keyOf(b)}'s bucket is ${mine[0]!.storageClass}, wants ${b.spec.storageClass}`;
    if (b.status.bucketId !== mine[0]!.id || b.status.observedGeneration !== b.metadata.generation) return `Bucket ${keyOf(b)}'s status does not name bucket ${mine[0]!.id} for generation ${b.metadata.generation}`;
  }
  const uids = new Set(owners.map((b) => b.metadata.uid));
  const orphan = buckets.find((x) => x.cluster === CLUSTER && !uids.has(x.owner));
  if (orphan) return `bucket ${orphan.id} (of ${orphan.ownerName}, gone) is still at the provider`;
  const marked = buckets.find((x) => x.sweepAfter !== undefined && x.sweepAfter !== null);
  if (marked) return `bucket ${marked.id} of ${marked.ownerName}, which exists, is still marked for sweeping`;
  return true;
}

/**
 * The case's own oracle: no bucket was deleted through the API (drift's out-of-band removals
 * aside) whose owner is still there at the end of the run. An owner there at the end (the same
 * uid) existed from before its bucket was made until the end, so the bucket was never an orphan.
 */
export const ownedBucketsKept = defineProperty<Record<string, never>>({
  name: 'owned-buckets-kept',
  description: 'the sweeper never deletes a bucket whose owner exists',
  defaults: {},
  judge: (run: RunRecord): Verdict => {
    const owners = new Map(run.finalObjects.filter((o) => o.kind === BUCKET).map((o) => [o.metadata.uid, keyOf(o)]));
    for (const svc of readDownstream(run.downstream)) {
      for (const c of svc.history) {
        if (c.op !== 'delete' || c.collection !== 'buckets') continue;
        const owner = typeof c.body['owner'] === 'string' ? c.body['owner'] : '';
        const key = owners.get(owner);
        if (key === undefined) continue;
        return {
          ok: false,
          summary: `bucket ${c.id} of Bucket ${key} was deleted while its owner existed (it still does at the end)`,
          explanation: `The provider's bucket ${c.id}, tagged with the uid of Bucket ${key}, was deleted through the API, and Bucket ${key} (that uid) is still there at the end of the run: it existed before its bucket was made, so the bucket was never an orphan. Decide "the owner is gone" on a live list taken after the provider's list, never on the informer cache (a Bucket whose ADDED event is late or lost is missing from it), and delete only on a later pass that still finds the orphan.`,
          evidence: { bucket: c.id, owner: key },
        };
      }
    }
    return { ok: true };
  },
});

export const orphanSweeper: FalsePositiveCase = {
  name: 'orphan-sweeper',
  description: 'a two-phase orphan sweeper (Custodian mark-for-op / tag-based GC): Buckets keep cloud buckets without a finalizer; a BucketSweeper marks the cluster\'s buckets whose owner a live list no longer shows, and deletes them once the mark is due and they are still orphaned',
  controllers: [bucketSweeper, bucketProvisioner],
  options: {
    story: {
      objects: [{ apiVersion: 'storage.example.com/v1', kind: SWEEPER, metadata: { name: 'default', namespace: 'storage-system' }, spec: { cluster: CLUSTER, graceMs: 3_000, intervalMs: 2_000 } }],
      actions: [],
    },
    // generated: Buckets made, changed, deleted and made again; each deletion leaves an orphan
    objects: [
      { kind: BUCKET, names: ['logs', 'assets'], spec: [{ storageClass: 'STANDARD' }, { storageClass: 'NEARLINE' }] },
    ],
    downstream: () => ({
      services: [
        fakeRestService({
          baseUrl: STORAGE_API,
          name: 'storage',
          collections: ['buckets'],
          idempotencyKeyHeader: 'Idempotency-Key',
          latencyMs: 20,
          // the tags that say whose a bucket is cannot be edited at this provider
          immutableFields: ['ownerName', 'cluster'],
          // a bucket another cluster made: never this sweeper's
          resources: { buckets: [{ owner: 'a-uid-of-another-cluster', ownerName: 'default/shared', cluster: 'prod-2', storageClass: 'STANDARD' }] },
        }),
      ],
      timeoutMs: 5_000,
    }),
    maxObjects: 2,
  },
  // the id a bucket gets depends on how many were made before it in the run
  properties: [ownedBucketsKept(), convergence({ converged: swept }), ...endStateProperties('status.bucketId')],
  buggy: {
    controllers: [defineSweeper('cached-one-phase'), bucketProvisioner],
    caughtBy: ['owned-buckets-kept', 'no-extra-destructive-actions', 'same-end-state', 'recovery', 'no-duplicate-side-effects'],
    why: 'it sweeps in one phase from its informer cache: a Bucket whose ADDED event is late or lost is not in the cache, its bucket looks orphaned and is deleted under it, and the provisioner makes another',
  },
};
