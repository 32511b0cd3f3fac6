import { defineController } from '../../../src/index.js';
import { RESYNC_MS } from '../../bug-zoo/shared/resync.js';
import { QUEUE, reconcileQueue } from './queue.js';

/**
 * BUG: the cleanup deletes the recorded queue with a plain DELETE, and a 404 is an error. It
 * works whenever the first DELETE is answered and the finalizer removal then succeeds. When the
 * queue was deleted but the controller never learned it or never got the finalizer off (it
 * crashed right after the DELETE, the DELETE's response was lost, the finalizer update hit a
 * conflict, someone deleted the queue at the broker before), every retry gets 404 and the Queue
 * stays Terminating forever.
 */
export const stuckCleanupBuggy = defineController({
  name: 'queue',
  for: QUEUE,
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcileQueue(async (api, q) => {
    if (q.status.id !== undefined) await api.remove('queues', q.status.id);
    await api.removeOwned('queues', q.metadata.uid);
  }),
});
