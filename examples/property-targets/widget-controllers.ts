import { defineController } from '../../src/index.js';
import { fromVirtualTimestamp } from '../../src/store/object.js';
import { RESYNC_MS, WIDGET, type WidgetSpec, type WidgetStatus } from './widget.js';

/** Clamps the size to 5 by rewriting the user's spec (caught by spec-status-ownership). */
export const clampSpecBuggy = defineController({
  name: 'widget',
  for: WIDGET,
  async reconcile(ctx) {
    let w = await ctx.client.tryGet<WidgetSpec, WidgetStatus>(WIDGET, ctx.key);
    if (!w) return;
    if (w.spec.size > 5) w = await ctx.client.update({ ...w, spec: { size: 5 } });
    if (w.status.size === w.spec.size && w.status.observedGeneration === w.metadata.generation) return;
    await ctx.client.updateStatus({ ...w, status: { size: w.spec.size, observedGeneration: w.metadata.generation } });
  },
});

/** Clamps in status only: spec stays the user's. */
export const clampStatusCorrect = defineController({
  name: 'widget',
  for: WIDGET,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const w = await ctx.client.tryGet<WidgetSpec, WidgetStatus>(WIDGET, ctx.key);
    if (!w) return;
    const size = Math.min(5, w.spec.size);
    if (w.status.size === size && w.status.observedGeneration === w.metadata.generation) return;
    await ctx.client.updateStatus({ ...w, status: { size, observedGeneration: w.metadata.generation } });
  },
});

/** Two controllers that both own `status.phase`, each setting its own value (caught by no-fighting). */
function fighter(name: string, phase: string, field: string) {
  return defineController({
    name,
    for: WIDGET,
    resyncPeriodMs: RESYNC_MS,
    async reconcile(ctx) {
      const w = await ctx.client.tryGet(WIDGET, ctx.key);
      if (!w || (w.status[field] === phase && w.status['observedGeneration'] === w.metadata.generation)) return;
      await ctx.client.patchStatus(WIDGET, ctx.key, { status: { [field]: phase, observedGeneration: w.metadata.generation } });
    },
  });
}
export const fighterA = fighter('fighter-a', 'a', 'phase');
export const fighterB = fighter('fighter-b', 'b', 'phase');
/** The fix: each controller owns its own field. */
export const splitA = fighter('fighter-a', 'a', 'phaseA');
export const splitB = fighter('fighter-b', 'b', 'phaseB');

/** Waits for "provisioning" by sleeping 20 s inside reconcile, holding the only worker (caught by responsiveness). */
export const sleepyBuggy = defineController({
  name: 'widget',
  for: WIDGET,
  async reconcile(ctx) {
    const w = await ctx.client.tryGet<WidgetSpec, WidgetStatus>(WIDGET, ctx.key);
    if (!w || (w.status.size === w.spec.size && w.status.observedGeneration === w.metadata.generation)) return;
    if (w.spec.size > 5) await ctx.clock.sleep(20_000);
    await ctx.client.updateStatus({ ...w, status: { size: w.spec.size, observedGeneration: w.metadata.generation } });
  },
});

/** Polls instead: records progress and asks to be called again, leaving the worker free. */
export const pollingCorrect = defineController({
  name: 'widget',
  for: WIDGET,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const w = await ctx.client.tryGet<WidgetSpec, WidgetStatus>(WIDGET, ctx.key);
    if (!w || (w.status.size === w.spec.size && w.status.observedGeneration === w.metadata.generation)) return;
    const created = fromVirtualTimestamp(w.metadata.creationTimestamp);
    if (w.spec.size > 5 && ctx.clock.now() - created < 20_000) return { requeueAfter: 20_000 - (ctx.clock.now() - created) };
    await ctx.client.updateStatus({ ...w, status: { size: w.spec.size, observedGeneration: w.metadata.generation } });
    return undefined;
  },
});
