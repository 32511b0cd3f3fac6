import { defineController } from '../../../src/index.js';
import { latest } from '../shared/latest.js';
import { RESYNC_MS } from '../shared/resync.js';
import { DB_KIND, DEFAULT_VERSION, ensureCredentials, reportReady, type DatabaseSpec, type DatabaseStatus } from './database.js';

/**
 * BUG (controller writes its own spec): fills in the default version by updating the spec. The
 * spec is the user's: the controller's write bumps the generation, and the next `kubectl apply`
 * or GitOps sync of the user's manifest (which has no version) takes it out again, so user and
 * controller overwrite each other and nobody can tell what was asked for.
 */
export const buggyDatabase = defineController({
  name: 'database',
  for: DB_KIND,
  owns: ['Secret'],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const db = await latest<DatabaseSpec, DatabaseStatus>(ctx, DB_KIND);
    if (!db || db.metadata.deletionTimestamp !== undefined) return;
    if (db.spec.version === undefined) {
      await ctx.client.update({ ...db, spec: { ...db.spec, version: DEFAULT_VERSION } });
      return;
    }
    await ensureCredentials(ctx, db);
    await reportReady(ctx, db, db.spec.version);
  },
});
