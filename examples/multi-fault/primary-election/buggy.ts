import { defineController } from '../../../src/index.js';
import { RESYNC_MS } from '../../bug-zoo/shared/resync.js';
import { DATABASE, INSTANCE, reconcileDatabase } from './database.js';

/**
 * BUG: a failover promotes the first instance of the list. The list usually comes back in the
 * order the instances were created, so the pick is the lowest ordinal, the one that already held
 * the role. But a failover also runs when a stale list shows no instance with the role (the
 * primary's label not yet cached), and when that list is also in another order, the failover
 * promotes another instance: two primaries, then the healthy one demoted.
 */
export const primaryElectionBuggy = defineController({
  name: 'database',
  for: DATABASE,
  owns: [INSTANCE],
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcileDatabase((instances) => instances[0]!),
});
