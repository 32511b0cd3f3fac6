import { defineController, isStoreError } from '../../../src/index.js';
import { WIDGET, type WidgetSpec, type WidgetStatus } from './widget.js';

/**
 * Correct: a 409 means "re-read and try again": it asks to be requeued (with the rate
 * limiter's backoff) instead of assuming another event will come.
 */
export const widgetCorrect = defineController({
  name: 'widget-correct',
  for: WIDGET,
  predicates: ['GenerationChanged'],
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
