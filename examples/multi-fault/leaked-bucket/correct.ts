import { defineController } from '../../../src/index.js';
import { RESYNC_MS } from '../../bug-zoo/shared/resync.js';
import { BUCKET, reconcileBucket } from './bucket.js';

/** Fixed: the cleanup deletes every bucket the Bucket owns (by owner), recorded or not. */
export const leakedBucketCorrect = defineController({
  name: 'bucket',
  for: BUCKET,
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcileBucket((api, b) => api.removeOwned('buckets', b.metadata.uid)),
});
