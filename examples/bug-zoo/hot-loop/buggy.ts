import { defineController, virtualTimestamp } from '../../../src/index.js';
import { latest } from '../shared/latest.js';
import { RESYNC_MS } from '../shared/resync.js';
import { configMapName, ensureConfigMap, WEBSITE_KIND, type WebsiteSpec, type WebsiteStatus } from './website.js';

/**
 * BUG (hot loop): writes status on every reconcile, stamped with the current time. Each write
 * is a watch event on the website, which enqueues the website again, which writes again: with
 * any API latency at all the controller writes as fast as the API server answers, while nothing
 * changes. Even where a write repeats the same stamp, it still costs a write request.
 */
export const buggyWebsite = defineController({
  name: 'website',
  for: WEBSITE_KIND,
  owns: ['ConfigMap'],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const site = await latest<WebsiteSpec, WebsiteStatus>(ctx, WEBSITE_KIND);
    if (!site || site.metadata.deletionTimestamp !== undefined) return;
    await ensureConfigMap(ctx, site);
    await ctx.client.updateStatus({
      ...site,
      status: { phase: 'Ready', configMap: configMapName(site), observedGeneration: site.metadata.generation, lastSyncTime: virtualTimestamp(ctx.clock.now()) },
    });
  },
});
