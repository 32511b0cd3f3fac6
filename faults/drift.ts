import fc from 'fast-check';
import { defineFault, type FaultModule } from '../src/harness/fault.js';
import type { JsonObject } from '../src/store/object.js';
import { ACTIONS, driftExternal, driftStored, type StoreAction } from './_internals/drift-edits.js';
import { bool, eventsOf, int, str } from './_internals/plan.js';



/** Options of {@link driftWith}. @public */
export interface DriftOptions {
  /**
   * Per kind, the paths (dotted, e.g. `spec.size`) a person or another controller may change on
   * objects of that kind: `modify`-style drift (`action: 'path'`) changes one of them (a number
   * +1, a string suffixed, a boolean flipped). Paths of immutable fields are refused by the store
   * like any other write.
   * @defaultValue {} (labels, annotations, `spec.replicas` and ConfigMap/Secret data only)
   */
  paths?: Readonly<Record<string, readonly string[]>>;
}

/**
 * Drift, configured: {@link drift} with the paths a person may change per kind. Replace the
 * built-in one with it: `faults: [...allFaults.filter((f) => f.kind !== 'drift'), driftWith({ paths: { Database: ['spec.size'] } })]`.
 * @public
 */
export function driftWith(options: DriftOptions = {}): FaultModule {
  const paths = options.paths ?? {};
  for (const [kind, list] of Object.entries(paths)) {
    if (!Array.isArray(list) || !list.every((p) => typeof p === 'string' && /^[^.\s]+(\.[^.\s]+)*$/.test(p))) throw new TypeError(`steadystate.driftWith: paths.${kind} must be a list of dotted paths such as 'spec.size', got ${JSON.stringify(list)}`);
  }
  const actions = Object.keys(paths).length > 0 ? ACTIONS : ACTIONS.filter((a) => a !== 'path');
  return defineFault({
    kind: 'drift',
    models: 'an out-of-band change a person or another controller can make: an owned or created object deleted, relabelled, annotated, scaled, its image set or its ConfigMap/Secret data edited; an external resource deleted or edited',
    survivedBy: 'level-triggered repair: every reconcile compares desired with actual (and re-checks external state periodically)',
    actsOn: 'environment',
    arbitrary: (ctx) =>
      eventsOf(
        fc.record({
          kind: fc.constant('drift'),
          at: fc.integer({ min: 0, max: Math.max(0, ctx.faultWindowMs - 1) }),
          params: fc.record({ action: fc.constantFrom(...actions), pick: fc.nat({ max: 7 }), external: fc.boolean() }),
        }),
        2,
      ),
    install({ world, fired }, plan) {
      const timers = plan.events
        .filter((e) => e.at !== undefined)
        .map((e) =>
          world.kernel.at(e.at!, () => {
            if (world.phase !== 'faults') return;
            const pick = int(e.params, 'pick', 0, 0, 1_000_000);
            const external = bool(e.params, 'external', false);
            const action = actionOf(e.params);
            const detail = external ? driftExternal(world, action === 'delete' ? 'delete' : 'modify', pick) : driftStored(world, action, pick, paths);
            if (detail) fired({ at: e.at, action, ...detail });
          }),
        );
      return () => {
        for (const t of timers) t.cancelled = true;
      };
    },
  });
}

/**
 * Drift: something outside the controller changes what it manages: a person runs
 * `kubectl delete pod`, `kubectl label --overwrite`, `kubectl annotate`, `kubectl scale`, `kubectl set image` or edits
 * an entry of a ConfigMap, another controller does the same, a cloud console deletes or edits the
 * external resource. It acts on the objects the controller manages (those with a controlling
 * owner, and those a controller created, e.g. the copies a secret copier made in other
 * namespaces), in the store as actor `environment:drift` and through the store's validation like
 * any writer, so it changes only what the API server lets anyone change; and on external
 * resources directly in the fake downstream services (no event tells the controller). A correct
 * reconciler survives because it is level-triggered: every pass compares desired with actual
 * and repairs, and it re-checks external state periodically (`requeueAfter`). One that only acts
 * when its own bookkeeping says "not done yet" never notices.
 *
 * Events: `{ kind: 'drift', at, params: { action, pick, external } }`: at virtual time `at`,
 * `action` `'delete'` (the default), `'label'` (a label added), `'annotation'` (the first
 * annotation's value changed, or one added), `'scale'` (`spec.replicas` + 1), `'image'` (the first container's
 * image of a Pod or a workload's template, as `kubectl set image`), `'data'` (the first
 * ConfigMap/Secret data entry changed) or `'path'` (a path {@link driftWith} declares) on the
 * `pick`-th (modulo the count) object it applies to, sorted by kind and key; with
 * `external: true`, `'delete'` or any other action (every top-level scalar changed) on the
 * `pick`-th external resource that has an `owner` field. No background form.
 * @public
 */
export const drift = driftWith();

function actionOf(params: JsonObject | undefined): StoreAction {
  const a = str(params, 'action', 'delete');
  if (a === 'modify') return 'image'; // plans written before the action list: an edit of the workload
  return (ACTIONS as readonly string[]).includes(a) ? (a as StoreAction) : 'delete';
}
