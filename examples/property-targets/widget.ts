import type { NewObject, Scenario, WorkloadAction } from '../../src/index.js';

/**
 * The object most property targets reconcile: a desired `size` in spec, the observed size and
 * observedGeneration in status. Small on purpose: each target isolates one bug.
 */
export interface WidgetSpec {
  size: number;
}
export interface WidgetStatus {
  size?: number;
  observedGeneration?: number;
  lastSyncedAt?: number;
}

export const WIDGET = 'Widget';

/** Resync period of the correct targets: a lost notification is repaired within the settle phase. */
export const RESYNC_MS = 5_000;

/** A Widget to create. */
export function widget(name: string, size: number, extra: Partial<NewObject['metadata']> = {}): NewObject {
  return { kind: WIDGET, metadata: { name, namespace: 'default', ...extra }, spec: { size } };
}

/** A scenario creating `objects` at t=0 plus `workload`, with short phases so tests run fast. */
export function widgetScenario(controllers: string[], workload: WorkloadAction[], options: Partial<Scenario> = {}): Scenario {
  return {
    seed: 7,
    controllers: controllers.map((name) => ({ name })),
    initialObjects: [],
    workload,
    faults: { events: [], background: [] },
    options: { faultWindowMs: 5_000, settleMs: 10_000 },
    ...options,
  };
}

/** `create` actions at t=0 for each object. */
export function createAll(objects: NewObject[], at = 0): WorkloadAction[] {
  return objects.map((object) => ({ at, type: 'create', object }));
}
