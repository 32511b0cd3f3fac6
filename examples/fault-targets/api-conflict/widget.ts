import type { FaultPlan, RunRecord, Scenario, StoredObject } from '../../../src/index.js';

/**
 * The widget fixture: the controller reports `status.observedGeneration` and `status.size`
 * with a conditional status update. The buggy one filters its events with `GenerationChanged` (a
 * common setup that keeps status writes from waking it up); the correct one cannot afford to,
 * since the predicate also filters resyncs.
 */
export const WIDGET = 'Widget';

export interface WidgetSpec {
  size: number;
}
export interface WidgetStatus {
  size?: number;
  observedGeneration?: number;
}

/** A Widget created at t=100 and resized at t=3000. */
export function widgetScenario(controller: string, faults: FaultPlan, seed = 1): Scenario {
  return {
    seed,
    controllers: [{ name: controller }],
    initialObjects: [],
    workload: [
      { at: 100, type: 'create', object: { kind: WIDGET, metadata: { name: 'w', namespace: 'default' }, spec: { size: 1 } } },
      { at: 3000, type: 'update', kind: WIDGET, key: 'default/w', spec: { size: 2 } },
    ],
    faults,
    options: { faultWindowMs: 10_000, settleMs: 10_000 },
  };
}

/** Healthy when status reflects the current generation. */
export function judgeWidget(run: RunRecord): true | string {
  const w = run.finalObjects.find((o) => o.kind === WIDGET) as unknown as StoredObject<WidgetSpec, WidgetStatus> | undefined;
  if (!w) return 'the Widget is gone';
  if (w.status.observedGeneration !== w.metadata.generation || w.status.size !== w.spec.size) {
    return `status is ${JSON.stringify(w.status)} at generation ${w.metadata.generation} (spec.size ${w.spec.size}): the last status update was lost`;
  }
  return true;
}
