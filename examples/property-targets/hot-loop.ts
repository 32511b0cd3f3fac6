import { defineController, virtualTimestamp } from '../../src/index.js';
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

/** How long a Widget warms up after its creation before it is Ready (a canary's minimum time available, a cache filling). */
export const WARM_UP_MS = 8_000;

/**
 * A stamping loop while waiting: during a Widget's warm-up every pass writes `status.checkedAt`
 * (the time of the check) and waits for the rest of the warm-up. The stamp's own watch event
 * brings the next pass, which stamps again: a write per watch delivery (about one per virtual
 * millisecond) for the whole warm-up, then Ready and quiet. The quiet tail is silent and the world
 * converges, so only no-hot-loop's stamping rule catches it (canary-rollout of the corpus had this
 * bug with `status.stepStartedAt`). The correct twin records the phase once and waits.
 */
export const stampingWhileWaitingBuggy = defineWarmUp(true);
export const stampingWhileWaitingCorrect = defineWarmUp(false);

function defineWarmUp(stamps: boolean) {
  return defineController({
    name: 'widget',
    for: WIDGET,
    resyncPeriodMs: RESYNC_MS,
    async reconcile(ctx) {
      const w = await ctx.client.tryGet<WidgetSpec, WidgetStatus & { phase?: string; checkedAt?: string }>(WIDGET, ctx.key);
      if (!w) return;
      const left = Date.parse(w.metadata.creationTimestamp) + WARM_UP_MS - Date.parse(virtualTimestamp(ctx.clock.now()));
      if (left > 0) {
        // BUG (stamps): the time of this check is new on every pass, so every pass writes
        const status = { ...w.status, phase: 'WarmingUp', ...(stamps ? { checkedAt: virtualTimestamp(ctx.clock.now()) } : {}) };
        if (w.status.phase !== 'WarmingUp' || stamps) await ctx.client.updateStatus({ ...w, status });
        return { requeueAfter: left };
      }
      if (w.status.phase === 'Ready' && w.status.size === w.spec.size && w.status.observedGeneration === w.metadata.generation) return;
      await ctx.client.updateStatus({ ...w, status: { phase: 'Ready', size: w.spec.size, observedGeneration: w.metadata.generation } });
      return undefined;
    },
  });
}
