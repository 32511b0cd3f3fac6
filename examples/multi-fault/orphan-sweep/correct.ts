import { defineController } from '../../../src/index.js';
import { RESYNC_MS } from '../../bug-zoo/shared/resync.js';
import { reconcileTenant, TENANT } from './tenant.js';

/** Fixed: the sweep asks the API server (a live list) which Tenants exist before deleting anything. */
export const orphanSweepCorrect = defineController({
  name: 'tenant',
  for: TENANT,
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcileTenant(async (ctx) => new Set((await ctx.client.list(TENANT, { live: true })).map((o) => o.metadata.uid))),
});
