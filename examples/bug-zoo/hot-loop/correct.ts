import { defineController, virtualTimestamp } from '../../../src/index.js';
import { latest } from '../shared/latest.js';
import { RESYNC_MS } from '../shared/resync.js';
import { sameJson } from '../shared/same-json.js';
import { configMapName, ensureConfigMap, WEBSITE_KIND, type WebsiteSpec, type WebsiteStatus } from './website.js';

/**
 * Fixed: computes the status it wants, compares it with the status it has (ignoring the time
 * stamp) and writes only when they differ, so its own status write ends the chain instead of
 * restarting it.
 */
export const website = defineController({
  name: 'website',
  for: WEBSITE_KIND,
  owns: ['ConfigMap'],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const site = await latest<WebsiteSpec, WebsiteStatus>(ctx, WEBSITE_KIND);
    if (!site || site.metadata.deletionTimestamp !== undefined) return;
    await ensureConfigMap(ctx, site);
    const { lastSyncTime: _, ...current } = site.status;
    const desired: WebsiteStatus = { phase: 'Ready', configMap: configMapName(site), observedGeneration: site.metadata.generation };
    if (sameJson(current, desired)) return;
    await ctx.client.updateStatus({ ...site, status: { ...desired, lastSyncTime: virtualTimestamp(ctx.clock.now()) } });
  },
});
