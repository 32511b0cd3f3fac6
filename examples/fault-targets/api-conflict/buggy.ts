import { defineController, isStoreError } from '../../../src/index.js';
import { WIDGET, type WidgetSpec, type WidgetStatus } from './widget.js';

/**
 * Buggy: treats 409 Conflict as "someone else is handling it, an event will bring me back"
 * and returns success. With the `GenerationChanged` predicate the concurrent metadata write
 * wakes nobody, so the status update is simply lost.
 */
export const widgetBuggy = defineController({
  name: 'widget-buggy',
  for: WIDGET,
  predicates: ['GenerationChanged'],
  async reconcile(ctx) {
    const w = await ctx.client.tryGet<WidgetSpec, WidgetStatus>(WIDGET, ctx.key);
    if (!w) return;
    if (w.status.observedGeneration === w.metadata.generation && w.status.size === w.spec.size) return;
    try {
      await ctx.client.updateStatus({ ...w, status: { size: w.spec.size, observedGeneration: w.metadata.generation } });
    } catch (err) {
      if (isStoreError(err, 'Conflict')) return; // "we'll get another event"
      throw err;
    }
  },
});
