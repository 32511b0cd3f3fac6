import { defineController, type JsonObject } from '../../../src/index.js';
import { HASH, SITE, specHash, type SiteSpec } from './site.js';

/**
 * Buggy: writes back the whole cached object as a merge patch (no resourceVersion: a patch is
 * unconditional; an update of a custom resource without one is refused by kube-apiserver) just
 * to set one annotation. When the cache holds an older version (events arrived out of order) it
 * silently reverts the user's newer spec: a lost update.
 */
export const siteBuggy = defineController({
  name: 'site-buggy',
  for: SITE,
  async reconcile(ctx) {
    const site = await ctx.client.tryGet<SiteSpec>(SITE, ctx.key);
    if (!site) return;
    const hash = specHash(site.spec);
    if (site.metadata.annotations[HASH] === hash) return;
    await ctx.client.patch(SITE, ctx.key, { spec: site.spec as unknown as JsonObject, metadata: { annotations: { ...site.metadata.annotations, [HASH]: hash } } });
  },
});
