import { defineController } from '../../../src/index.js';
import { RESYNC_MS } from '../shared/resync.js';
import { BACKUP_KIND, reconcileBackup } from './backup.js';

/**
 * BUG (several replicas without leader election): deployed with two replicas for availability and
 * without `--leader-elect`, so it says so: `leaderElection: false` (left out, steadystate runs more
 * than one replica with leader election, as operators are deployed). Both replicas reconcile
 * every backup. Lookup-before-create does not help across processes: both look,
 * both find nothing, both take a snapshot, and the backup service now holds two.
 */
export const buggyBackup = defineController({
  name: 'backup',
  for: BACKUP_KIND,
  // deployed without leader election: both replicas are active (the bug this exhibit shows)
  leaderElection: false,
  resyncPeriodMs: RESYNC_MS,
  reconcile: (ctx) => reconcileBackup(ctx, { idempotencyKey: false }),
});
