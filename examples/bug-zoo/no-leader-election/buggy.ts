import { defineController } from '../../../src/index.js';
import { RESYNC_MS } from '../shared/resync.js';
import { BACKUP_KIND, reconcileBackup } from './backup.js';

/**
 * BUG (several replicas without leader election): deployed with two replicas for availability,
 * both reconcile every backup. Lookup-before-create does not help across processes: both look,
 * both find nothing, both take a snapshot, and the backup service now holds two.
 */
export const buggyBackup = defineController({
  name: 'backup',
  for: BACKUP_KIND,
  leaderElection: false,
  resyncPeriodMs: RESYNC_MS,
  reconcile: (ctx) => reconcileBackup(ctx, { idempotencyKey: false }),
});
