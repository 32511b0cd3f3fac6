import { defineController } from '../../../src/index.js';
import { RESYNC_MS } from '../resync.js';
import { HASH, SITE, specHash, type SiteSpec } from './site.js';

/**
 * Correct: optimistic concurrency. The update carries the resourceVersion it read, so a
 * decision made on a stale cache answers 409 instead of overwriting; the error goes back to
 * the queue and the retry works on fresher state.
 */
export const siteCorrect = defineController({
  name: 'site-correct',
  for: SITE,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const site = await ctx.client.tryGet<SiteSpec>(SITE, ctx.key);
    if (!site) return;
    const hash = specHash(site.spec);
    if (site.metadata.annotations[HASH] === hash) return;
    await ctx.client.update({ ...site, metadata: { ...site.metadata, annotations: { ...site.metadata.annotations, [HASH]: hash } } });
  },
});
