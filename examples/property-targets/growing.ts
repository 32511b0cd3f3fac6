import { defineController, virtualTimestamp } from '../../src/index.js';
import { RESYNC_MS, WIDGET, type WidgetSpec } from './widget.js';

/** A Widget's status with a history of the sizes it reported. */
export interface HistoryStatus {
  size?: number;
  observedGeneration?: number;
  history?: { at: string; size: number }[];
}

/** Entries the correct twin keeps (a bounded log: the last N transitions). */
export const HISTORY_LIMIT = 10;

/**
 * A growing loop (red team round 9, L-1): every pass appends an entry to `status.history`, whether
 * or not anything changed, so every write makes the Widget bigger and its watch event brings the
 * next pass. On a cluster it grows until etcd refuses it (1.5 MiB); the check used not to end (each
 * write costs the object's size). Caught by no-hot-loop's growing loop. The correct twin appends
 * only on a real transition (the size it reports changes) and keeps the last {@link HISTORY_LIMIT}.
 */
export const growingHistoryBuggy = defineHistory(true);
export const growingHistoryCorrect = defineHistory(false);

function defineHistory(always: boolean) {
  return defineController({
    name: 'widget',
    for: WIDGET,
    resyncPeriodMs: RESYNC_MS,
    async reconcile(ctx) {
      const w = await ctx.client.tryGet<WidgetSpec, HistoryStatus>(WIDGET, ctx.key);
      if (!w) return;
      const changed = w.status.size !== w.spec.size || w.status.observedGeneration !== w.metadata.generation;
      // BUG (always): an entry for every pass, also for one that found nothing new
      if (!changed && !always) return;
      const history = [...(w.status.history ?? []), { at: virtualTimestamp(ctx.clock.now()), size: w.spec.size }];
      const kept = always ? history : history.slice(-HISTORY_LIMIT);
      await ctx.client.updateStatus({ ...w, status: { size: w.spec.size, observedGeneration: w.metadata.generation, history: kept } });
    },
  });
}

/**
 * The same loop in a ConfigMap the controller owns: every pass adds a key to its data (one per
 * pass: `entry-17`), so the changed fields differ on every write. The correct twin writes the
 * ConfigMap's one key only when it differs from the spec.
 */
export const growingConfigMapBuggy = defineConfigMap(true);
export const growingConfigMapCorrect = defineConfigMap(false);

function defineConfigMap(always: boolean) {
  return defineController({
    name: 'widget',
    for: WIDGET,
    owns: ['ConfigMap'],
    resyncPeriodMs: RESYNC_MS,
    async reconcile(ctx) {
      const w = await ctx.client.tryGet<WidgetSpec>(WIDGET, ctx.key);
      if (!w) return;
      const ref = { namespace: w.metadata.namespace, name: `${w.metadata.name}-log` };
      const want = String(w.spec.size);
      const cm = await ctx.client.tryGet('ConfigMap', ref);
      if (!cm) {
        const owner = { apiVersion: 'example.com/v1', kind: WIDGET, name: w.metadata.name, uid: w.metadata.uid, controller: true };
        await ctx.client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...ref, ownerReferences: [owner] }, data: { size: want } } as never);
        return;
      }
      const data = (cm['data'] ?? {}) as Record<string, string>;
      if (!always) {
        if (data['size'] !== want) await ctx.client.update({ ...cm, data: { ...data, size: want } });
        return;
      }
      // BUG: a new entry on every pass (its own write's event brings the next)
      await ctx.client.update({ ...cm, data: { ...data, size: want, [`entry-${Object.keys(data).length}`]: virtualTimestamp(ctx.clock.now()) } });
    },
  });
}
