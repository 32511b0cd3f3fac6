import { defineController } from '../../../src/index.js';
import { HttpError } from '../shared/json-api.js';
import { latest } from '../shared/latest.js';
import { RESYNC_MS } from '../shared/resync.js';
import { BUCKET_KIND, BUCKET_RESYNC_MS, syncBucket, type BucketSpec, type BucketStatus } from './bucket.js';

/**
 * BUG (retry storm): when the storage API fails, it swallows the error and asks to be called
 * again in 50 ms, "so the bucket shows up quickly". That bypasses the workqueue's exponential
 * backoff: while the API is down (or rate-limiting with 429 + Retry-After) every bucket hits it
 * twenty times a second, keeping it down.
 */
export const buggyBucket = defineController({
  name: 'bucket',
  for: BUCKET_KIND,
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const b = await latest<BucketSpec, BucketStatus>(ctx, BUCKET_KIND);
    if (!b) return;
    try {
      await syncBucket(ctx, b);
    } catch (err) {
      ctx.log.error('bucket sync failed, retrying', { error: err instanceof HttpError ? err.status : String(err) });
      return { requeueAfter: 50 };
    }
    return b.metadata.deletionTimestamp === undefined ? { requeueAfter: BUCKET_RESYNC_MS } : undefined;
  },
});
