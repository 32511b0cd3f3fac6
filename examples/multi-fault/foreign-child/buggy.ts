import { defineController } from '../../../src/index.js';
import { RESYNC_MS } from '../../bug-zoo/shared/resync.js';
import { reconcileSite, SITE, SITE_CONFIG } from './site.js';

/**
 * BUG: once a foreign SiteConfig has stood in the cache for 2 s, the name counts as taken, with
 * no look at the API server. After a Site is deleted and recreated, the old Site's SiteConfig is
 * in the cache until the garbage collector's deletion arrives, normally a moment later; when
 * the cache lags behind (a stalled watch, a watch that fell behind), the new Site is declared
 * NameTaken for good, although the name was free 5 ms after the old Site went.
 */
export const foreignChildBuggy = defineController({
  name: 'site',
  for: SITE,
  owns: [SITE_CONFIG],
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcileSite(async () => true),
});
