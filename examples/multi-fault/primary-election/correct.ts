import { defineController } from '../../../src/index.js';
import { RESYNC_MS } from '../../bug-zoo/shared/resync.js';
import { DATABASE, INSTANCE, ordinalOf, reconcileDatabase } from './database.js';

/** Fixed: a failover promotes the lowest surviving ordinal, whatever order the list came in. */
export const primaryElectionCorrect = defineController({
  name: 'database',
  for: DATABASE,
  owns: [INSTANCE],
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcileDatabase((instances) => [...instances].sort((a, b) => ordinalOf(a.metadata.name) - ordinalOf(b.metadata.name))[0]!),
});
