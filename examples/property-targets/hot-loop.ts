import { defineController } from '../../src/index.js';
import { RESYNC_MS, WIDGET, type WidgetSpec, type WidgetStatus } from './widget.js';

/**
 * Hot loop: every pass stamps `status.lastSyncedAt` and polls again in 500 ms, so it writes
 * forever although nothing changes (caught by no-hot-loop). The correct twin writes only when
 * status differs from what the spec asks.
 */
export const hotLoopBuggy = defineController({
  name: 'widget',
  for: WIDGET,
  async reconcile(ctx) {
    const w = await ctx.client.tryGet<WidgetSpec, WidgetStatus>(WIDGET, ctx.key);
    if (!w) return;
    await ctx.client.updateStatus({ ...w, status: { size: w.spec.size, observedGeneration: w.metadata.generation, lastSyncedAt: ctx.clock.now() } });
    return { requeueAfter: 500 };
  },
});

export const hotLoopCorrect = defineController({
  name: 'widget',
  for: WIDGET,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const w = await ctx.client.tryGet<WidgetSpec, WidgetStatus>(WIDGET, ctx.key);
    if (!w) return;
    if (w.status.size === w.spec.size && w.status.observedGeneration === w.metadata.generation) return;
    await ctx.client.updateStatus({ ...w, status: { size: w.spec.size, observedGeneration: w.metadata.generation } });
  },
});

/**
 * Not idempotent: writes status on every pass, equal or not. The writes are no-ops (no event,
 * so no loop), but each costs an API request (caught by idempotence).
 */
export const unconditionalWriteBuggy = defineController({
  name: 'widget',
  for: WIDGET,
  async reconcile(ctx) {
    const w = await ctx.client.tryGet<WidgetSpec, WidgetStatus>(WIDGET, ctx.key);
    if (!w) return;
    await ctx.client.updateStatus({ ...w, status: { size: w.spec.size, observedGeneration: w.metadata.generation } });
  },
});
