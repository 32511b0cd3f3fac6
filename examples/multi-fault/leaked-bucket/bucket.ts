import type { StoredObject } from '../../../src/index.js';
import type { JsonApi } from '../../bug-zoo/shared/json-api.js';
import { reconcileExternal, type ExternalStatus } from '../shared/external-resource.js';

/**
 * A `Bucket` is a bucket at an external object-storage API (`POST /buckets` creates one with a
 * server-chosen id; the API honours an `Idempotency-Key` header). Both controllers create it with
 * a key made of the Bucket's uid, record its id in status, re-check it every 10 s and delete it
 * behind a finalizer. They differ only in what the cleanup deletes.
 */
export const BUCKET = 'Bucket';
export const STORAGE_API = 'https://storage.example/v1';

export interface BucketSpec {
  region: string;
  versioning: boolean;
}
export type Bucket = StoredObject<BucketSpec, ExternalStatus>;

/** The reconcile both share; `cleanup` deletes what the Bucket owns at the storage API. */
export function reconcileBucket(cleanup: (api: JsonApi, b: Bucket) => Promise<void>) {
  return reconcileExternal<BucketSpec>({
    kind: BUCKET,
    baseUrl: STORAGE_API,
    collection: 'buckets',
    finalizer: 'storage.example/bucket',
    desired: (b) => ({ owner: b.metadata.uid, region: b.spec.region, versioning: b.spec.versioning }),
    cleanup,
  });
}
