import { defineController } from '../../../src/index.js';
import { HttpError } from '../shared/json-api.js';
import { latest } from '../shared/latest.js';
import { RESYNC_MS } from '../shared/resync.js';
import { BUCKET_KIND, BUCKET_RESYNC_MS, syncBucket, type BucketSpec, type BucketStatus } from './bucket.js';

/**
 * Fixed: a failure is returned as an error, so the workqueue retries the key with exponential
 * backoff (starting at 500 ms, capped at a minute, as controllers of slow external APIs
 * configure it); a 429 or 503 with `Retry-After` waits as long as the server asked.
 */
export const bucket = defineController({
  name: 'bucket',
  for: BUCKET_KIND,
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  rateLimiter: { baseDelayMs: 500, maxDelayMs: 60_000 },
  async reconcile(ctx) {
    const b = await latest<BucketSpec, BucketStatus>(ctx, BUCKET_KIND);
    if (!b) return;
    try {
      await syncBucket(ctx, b);
    } catch (err) {
      if (err instanceof HttpError && err.retryAfterMs !== undefined && err.retryAfterMs > 0) {
        ctx.log.error('storage API asked us to slow down', { status: err.status, retryAfterMs: err.retryAfterMs });
        return { requeueAfter: err.retryAfterMs };
      }
      throw err; // rate-limited requeue: exponential backoff per bucket
    }
    return b.metadata.deletionTimestamp === undefined ? { requeueAfter: BUCKET_RESYNC_MS } : undefined;
  },
});
