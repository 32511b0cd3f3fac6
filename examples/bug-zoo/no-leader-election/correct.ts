import { defineController } from '../../../src/index.js';
import { RESYNC_MS } from '../shared/resync.js';
import { BACKUP_KIND, reconcileBackup } from './backup.js';

/**
 * Fixed: leader election. Both replicas run, but only the holder of the Lease takes keys; the
 * other stands by and takes over when the leader's lease expires, then finds the leader's
 * snapshot by owner instead of taking another. For the moment when two processes both believe
 * they lead (a leader paused past its lease), the snapshot request carries an idempotency key.
 */
export const backup = defineController({
  name: 'backup',
  for: BACKUP_KIND,
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile: (ctx) => reconcileBackup(ctx, { idempotencyKey: true }),
});
