import { defineController } from '../../../src/index.js';
import { RESYNC_MS } from '../../bug-zoo/shared/resync.js';
import { QUEUE, reconcileQueue } from './queue.js';

/** Fixed: the cleanup is idempotent: it deletes whatever the Queue still owns, and a queue already gone is done. */
export const stuckCleanupCorrect = defineController({
  name: 'queue',
  for: QUEUE,
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcileQueue((api, q) => api.removeOwned('queues', q.metadata.uid)),
});
