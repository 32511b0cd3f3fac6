import { defineController } from '../../../src/index.js';
import { latest } from '../shared/latest.js';
import { RESYNC_MS } from '../shared/resync.js';
import { DB_KIND, DEFAULT_VERSION, ensureCredentials, reportReady, type DatabaseSpec, type DatabaseStatus } from './database.js';

/**
 * Fixed: the spec stays the user's. The version the controller resolved (the user's, or the
 * default) is reported in status, where observed and chosen values belong.
 */
export const database = defineController({
  name: 'database',
  for: DB_KIND,
  owns: ['Secret'],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const db = await latest<DatabaseSpec, DatabaseStatus>(ctx, DB_KIND);
    if (!db || db.metadata.deletionTimestamp !== undefined) return;
    await ensureCredentials(ctx, db);
    await reportReady(ctx, db, db.spec.version ?? DEFAULT_VERSION);
  },
});
