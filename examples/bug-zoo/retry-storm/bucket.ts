import type { ReconcileContext, StoredObject } from '../../../src/index.js';
import { addFinalizer, removeFinalizer } from '../shared/finalizers.js';
import { jsonApi, matches, type JsonApi, type Remote } from '../shared/json-api.js';

/**
 * A `Bucket` is a storage bucket at an external object-storage API. Shared by the buggy and the
 * correct controller: the sync itself (look up by owner, create, converge settings, clean up
 * behind a finalizer). They differ only in what they do when the API fails.
 */
export const BUCKET_KIND = 'Bucket';
export const STORAGE_API = 'https://storage.example/v1';
export const BUCKET_FINALIZER = 'storage.example/bucket';
/** Re-check a synced bucket this often (drift repair). */
export const BUCKET_RESYNC_MS = 10_000;

export interface BucketSpec {
  region: string;
  versioning: boolean;
}
export interface BucketStatus {
  bucketId?: string;
  observedGeneration?: number;
}
export type Bucket = StoredObject<BucketSpec, BucketStatus>;

export interface RemoteBucket {
  /** uid of the Bucket object. */
  owner: string;
  name: string;
  region: string;
  versioning: boolean;
}

function api(ctx: ReconcileContext): JsonApi {
  return jsonApi(ctx.fetch, STORAGE_API);
}

/**
 * One pass of the sync. Throws {@link HttpError} when the storage API fails; what happens next is
 * the caller's business.
 */
export async function syncBucket(ctx: ReconcileContext, b: Bucket): Promise<void> {
  const storage = api(ctx);
  if (b.metadata.deletionTimestamp !== undefined) {
    if (!b.metadata.finalizers.includes(BUCKET_FINALIZER)) return;
    await storage.removeOwned('buckets', b.metadata.uid);
    await removeFinalizer(ctx, b, BUCKET_FINALIZER);
    return;
  }
  if (await addFinalizer(ctx, b, BUCKET_FINALIZER)) return;
  const want: RemoteBucket = { owner: b.metadata.uid, name: `${b.metadata.namespace ?? 'cluster'}-${b.metadata.name}`, region: b.spec.region, versioning: b.spec.versioning };
  let remote: Remote<RemoteBucket> | undefined = (await storage.list<RemoteBucket>('buckets', { owner: b.metadata.uid }))[0];
  if (!remote) remote = await storage.create('buckets', want, { idempotencyKey: `${b.metadata.uid}/${b.status.bucketId ?? 'first'}` });
  else if (!matches(remote, want)) remote = await storage.replace('buckets', remote.id, want);
  if (b.status.bucketId !== remote.id || b.status.observedGeneration !== b.metadata.generation) {
    await ctx.client.updateStatus({ ...b, status: { bucketId: remote.id, observedGeneration: b.metadata.generation } });
  }
}
