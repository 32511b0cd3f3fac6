import { defineController } from '../../../src/index.js';
import { RESYNC_MS } from '../../bug-zoo/shared/resync.js';
import { BUCKET, reconcileBucket } from './bucket.js';

/**
 * BUG: the cleanup deletes the bucket whose id status records. A bucket that was created but not
 * yet recorded (the controller died right after the POST) leaks when the Bucket is deleted before
 * the restarted controller records it: the deletion finds no id, removes the finalizer, and
 * nothing ever deletes the bucket.
 */
export const leakedBucketBuggy = defineController({
  name: 'bucket',
  for: BUCKET,
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcileBucket(async (api, b) => {
    if (b.status.id !== undefined) await api.removeIfPresent('buckets', b.status.id);
  }),
});
