import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import type { World } from '../src/harness/world.js';
import { isStoreError } from '../src/store/errors.js';
import { keyOf, type Json, type JsonObject, type StoredObject } from '../src/store/object.js';
import { bool, eventsOf, int, str } from './_internals/plan.js';

const ACTOR = 'environment:drift';

/**
 * Drift: something outside the controller changes what it manages: a person runs
 * `kubectl delete pod`, `kubectl edit` changes a field, a cloud console deletes or edits the
 * external resource. Owned objects are changed in the store by actor `environment:drift`;
 * external resources directly in the fake downstream services (no event tells the controller).
 * A correct reconciler survives because it is level-triggered: every pass compares desired with
 * actual and repairs, and it re-checks external state periodically (`requeueAfter`). One that
 * only acts when its own bookkeeping says "not done yet" never notices.
 *
 * Events: `{ kind: 'drift', at, params: { action, pick, external } }`: at virtual time `at`,
 * `action` `'delete'` (default) or `'modify'` (every top-level scalar of the spec, or of the
 * external resource, is changed) the `pick`-th (modulo the count) object that has a controlling
 * owner, sorted by kind and key; with `external: true` the `pick`-th external resource that has
 * an `owner` field. No background form.
 * @public
 */
export const drift = defineFault({
  kind: 'drift',
  models: 'an out-of-band change: an owned object or an external resource deleted or edited by someone else',
  survivedBy: 'level-triggered repair: every reconcile compares desired with actual (and re-checks external state periodically)',
  actsOn: 'environment',
  arbitrary: (ctx) =>
    eventsOf(
      fc.record({
        kind: fc.constant('drift'),
        at: fc.integer({ min: 0, max: Math.max(0, ctx.faultWindowMs - 1) }),
        params: fc.record({ action: fc.constantFrom('delete', 'modify'), pick: fc.nat({ max: 7 }), external: fc.boolean() }),
      }),
      2,
    ),
  install({ world, fired }, plan) {
    const timers = plan.events
      .filter((e) => e.at !== undefined)
      .map((e) =>
        world.kernel.at(e.at!, () => {
          if (world.phase !== 'faults') return;
          const action = str(e.params, 'action', 'delete') === 'modify' ? 'modify' : 'delete';
          const pick = int(e.params, 'pick', 0, 0, 1_000_000);
          const detail = bool(e.params, 'external', false) ? driftExternal(world, action, pick) : driftOwned(world, action, pick);
          if (detail) fired({ at: e.at, action, ...detail });
        }),
      );
    return () => {
      for (const t of timers) t.cancelled = true;
    };
  },
});

function driftOwned(world: World, action: 'delete' | 'modify', pick: number): Record<string, unknown> | undefined {
  const owned: StoredObject[] = [];
  for (const kind of [...world.store.kindNames()].sort()) {
    const objs = world.store.peekAll(kind).filter((o) => o.metadata.deletionTimestamp === undefined && o.metadata.ownerReferences.some((r) => r.controller));
    for (const o of objs.sort((a, b) => (keyOf(a.metadata) < keyOf(b.metadata) ? -1 : 1))) owned.push(o);
  }
  const obj = owned[pick % Math.max(1, owned.length)];
  if (!obj) return undefined;
  const ref = obj.metadata.namespace !== undefined ? { namespace: obj.metadata.namespace, name: obj.metadata.name } : { name: obj.metadata.name };
  try {
    if (action === 'delete') world.store.delete(ACTOR, obj.kind, ref);
    else world.store.patch(ACTOR, obj.kind, ref, { spec: altered(obj.spec, []) });
  } catch (err) {
    if (isStoreError(err)) return undefined; // the store refused: nothing drifted
    throw err;
  }
  return { objectKind: obj.kind, key: keyOf(obj.metadata), uid: obj.metadata.uid };
}

function driftExternal(world: World, action: 'delete' | 'modify', pick: number): Record<string, unknown> | undefined {
  const found: { service: (typeof services)[number]; collection: string; id: string; body: JsonObject }[] = [];
  const services = [...(world.downstreamServices ?? [])].sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const service of services) {
    for (const g of service.byOwner()) for (const r of g.resources) found.push({ service, collection: g.collection, id: r.id, body: r });
  }
  const target = found[pick % Math.max(1, found.length)];
  if (!target) return undefined;
  if (action === 'delete') target.service.remove(target.collection, target.id);
  else target.service.mutate(target.collection, target.id, altered(target.body, ['id', 'owner']));
  return { service: target.service.name, collection: target.collection, id: target.id, external: true };
}

/** Every top-level scalar changed (strings suffixed, numbers bumped, booleans flipped). */
function altered(body: JsonObject, keep: string[]): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(body)) {
    if (keep.includes(k)) continue;
    const next: Json | undefined = typeof v === 'string' ? `${v}-drifted` : typeof v === 'number' ? v + 1 : typeof v === 'boolean' ? !v : undefined;
    if (next !== undefined) out[k] = next;
  }
  if (Object.keys(out).length === 0) out['drifted'] = true;
  return out;
}
