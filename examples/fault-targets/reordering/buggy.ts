import { defineController } from '../../../src/index.js';
import { HASH, SITE, specHash, type SiteSpec } from './site.js';

/**
 * Buggy: writes back the whole cached object with its resourceVersion cleared (an
 * unconditional update, `kubectl replace --force` style) just to set one annotation. When the
 * cache holds an older version (events arrived out of order) it silently reverts the user's
 * newer spec: a lost update.
 */
export const siteBuggy = defineController({
  name: 'site-buggy',
  for: SITE,
  async reconcile(ctx) {
    const site = await ctx.client.tryGet<SiteSpec>(SITE, ctx.key);
    if (!site) return;
    const hash = specHash(site.spec);
    if (site.metadata.annotations[HASH] === hash) return;
    await ctx.client.update({ ...site, metadata: { ...site.metadata, resourceVersion: '', annotations: { ...site.metadata.annotations, [HASH]: hash } } });
  },
});
