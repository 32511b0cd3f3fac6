import { defineController } from '../../../src/index.js';
import { RESYNC_MS } from '../../bug-zoo/shared/resync.js';
import { reconcileTenant, TENANT } from './tenant.js';

/**
 * BUG: the start-up sweep trusts the informer cache for which Tenants exist. Right after a start
 * the cache holds what the initial list returned, and a restarted controller may list from an API
 * server replica that lags behind: a Tenant created just before the crash is not in that list, so
 * its quota counts as an orphan and is deleted (the tenant's workloads lose their quota); the
 * controller creates it again once the Tenant shows up.
 */
export const orphanSweepBuggy = defineController({
  name: 'tenant',
  for: TENANT,
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcileTenant(async (ctx) => new Set((await ctx.client.list(TENANT)).map((o) => o.metadata.uid))),
});
