import { defineController } from '../../../src/index.js';
import { RESYNC_MS } from '../../bug-zoo/shared/resync.js';
import { reconcileSite, SITE, SITE_CONFIG } from './site.js';

/**
 * Fixed: a name counts as taken only if the API server still has the foreign SiteConfig (a live
 * read), never on the cache's word alone.
 */
export const foreignChildCorrect = defineController({
  name: 'site',
  for: SITE,
  owns: [SITE_CONFIG],
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcileSite(async (ctx, cached, site) => {
    const live = await ctx.client.tryGet(SITE_CONFIG, { namespace: cached.metadata.namespace, name: cached.metadata.name }, { live: true });
    return live !== undefined && !live.metadata.ownerReferences.some((r) => r.controller === true && r.uid === site.metadata.uid);
  }),
});
