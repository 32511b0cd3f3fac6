import { defineController, isStoreError } from '../../../src/index.js';
import { RESYNC_MS } from '../resync.js';
import { WIDGET, type WidgetSpec, type WidgetStatus } from './widget.js';

/**
 * Correct: a 409 means "re-read and try again": it asks to be requeued (with the rate
 * limiter's backoff) instead of assuming another event will come. It does not filter with
 * `GenerationChanged`: that predicate also filters resyncs, and a Widget recreated under the
 * same name (generation 1 again) reaches it as an update with an unchanged generation, so a lost
 * notification would never be repaired. Its own status writes wake it, and the comparison makes
 * those passes no-ops.
 */
export const widgetCorrect = defineController({
  name: 'widget-correct',
  for: WIDGET,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const w = await ctx.client.tryGet<WidgetSpec, WidgetStatus>(WIDGET, ctx.key);
    if (!w) return;
    if (w.status.observedGeneration === w.metadata.generation && w.status.size === w.spec.size) return;
    try {
      await ctx.client.updateStatus({ ...w, status: { size: w.spec.size, observedGeneration: w.metadata.generation } });
    } catch (err) {
      if (isStoreError(err, 'Conflict')) return { requeue: true };
      throw err;
    }
    return undefined;
  },
});
