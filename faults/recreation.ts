import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import type { World } from '../src/harness/world.js';
import { keyOf, type NewObject, type StoredObject } from '../src/store/object.js';
import { eventsOf, int } from './_internals/plan.js';

const ACTOR = 'environment:recreation';

/**
 * Recreation: the primary object is deleted and created again under the same name, from the
 * manifest the person declared, with a new uid (`kubectl delete -f app.yaml && kubectl apply -f
 * app.yaml`, a GitOps tool replacing an object, a namespace restored from backup). What
 * controllers added to the object (a scheduler's `spec.nodeName`, a label) is not in the manifest:
 * a Pod came back bound to a node the scheduler had filled meanwhile (corpus pod-scheduler). The old object's dependents are
 * garbage-collected; anything that still points at the old uid is stale. A correct reconciler
 * survives because it identifies objects by uid (owner references, memory keyed by uid) and
 * treats the new object as new; one that keys what it knows by name believes the new object
 * was already handled.
 *
 * Only objects a person declared are recreated (the user's, the initial ones): a primary object
 * a controller made (a cert-manager CertificateRequest, a child that is another controller's
 * primary) has no manifest anyone applies again.
 *
 * Events: `{ kind: 'recreation', at, params: { pick, gapMs } }`: at virtual time `at` the
 * `pick`-th (modulo the count) primary object a person declared, sorted by kind and key, or the one whose key is
 * `target`, is deleted by actor `environment:recreation` and, once it is gone (finalizers run
 * first), recreated `gapMs` later. No background form.
 * @public
 */
export const recreation = defineFault({
  kind: 'recreation',
  models: 'a primary object a person declared deleted and recreated under the same name from the manifest they declared (new uid)',
  survivedBy: 'identity by uid (owner references, state keyed by uid), never by name or labels alone',
  actsOn: 'environment',
  arbitrary: (ctx) =>
    eventsOf(
      fc.record({
        kind: fc.constant('recreation'),
        at: fc.integer({ min: 0, max: Math.max(0, ctx.faultWindowMs - 1) }),
        params: fc.record({ pick: fc.nat({ max: 7 }), gapMs: fc.integer({ min: 0, max: 2000 }) }),
      }),
      2,
    ),
  install({ world, fired }, plan) {
    let live = true;
    const waiting = new Map<string, () => void>();
    // who made each object: only what a person made has a manifest to apply again
    const madeBy = new Map<string, string>();
    const onWrite = (w: { kind: string; key: string; actor: string; verb: string; error?: string; removed?: boolean }) => {
      if (w.verb === 'create' && w.error === undefined) madeBy.set(`${w.kind}\u0000${w.key}`, w.actor);
      if (!w.removed) return;
      const k = `${w.kind}\u0000${w.key}`;
      const recreate = waiting.get(k);
      if (!recreate) return;
      waiting.delete(k);
      recreate();
    };
    world.afterWrite.push(onWrite);
    const timers = plan.events
      .filter((e) => e.at !== undefined)
      .map((e) =>
        world.kernel.at(e.at!, () => {
          if (world.phase !== 'faults') return;
          const obj = pickPrimary(world, e.target, int(e.params, 'pick', 0, 0, 1_000_000), (o) => {
            const by = madeBy.get(`${o.kind}\u0000${keyOf(o.metadata)}`);
            return by === undefined || by === 'user' || by === ACTOR;
          });
          if (!obj) return;
          const gapMs = int(e.params, 'gapMs', 0, 0, 3_600_000);
          const key = keyOf(obj.metadata);
          // the same manifest applied again: what the person declared (world.declared), never what a
          // controller added to the object (a scheduler's spec.nodeName, a label); the live object's
          // top-level fields, not status, only for an object whose manifest the run never saw
          const manifest = world.declared.get(`${obj.kind}\u0000${key}`) ?? liveManifest(obj);
          fired({ at: e.at, objectKind: obj.kind, key, uid: obj.metadata.uid, gapMs });
          waiting.set(`${obj.kind}\u0000${key}`, () =>
            world.kernel.after(gapMs, () => {
              if (live && world.store.peek(obj.kind, key) === undefined) world.store.create(ACTOR, manifest);
            }),
          );
          const ref = obj.metadata.namespace !== undefined ? { namespace: obj.metadata.namespace, name: obj.metadata.name } : { name: obj.metadata.name };
          world.store.delete(ACTOR, obj.kind, ref);
        }),
      );
    return () => {
      live = false;
      for (const t of timers) t.cancelled = true;
      const i = world.afterWrite.indexOf(onWrite);
      if (i >= 0) world.afterWrite.splice(i, 1);
    };
  },
});

/** An object's top-level fields (spec, ConfigMap data, …) under its name, labels and annotations: not status. */
function liveManifest(obj: StoredObject): NewObject {
  const { metadata: _m, status: _s, ...content } = obj;
  return {
    ...content,
    metadata: { name: obj.metadata.name, ...(obj.metadata.namespace !== undefined ? { namespace: obj.metadata.namespace } : {}), labels: { ...obj.metadata.labels }, annotations: { ...obj.metadata.annotations } },
  };
}

function pickPrimary(world: World, target: string | undefined, pick: number, declared: (o: StoredObject) => boolean): StoredObject | undefined {
  const kinds = [...new Set(world.managers.map((m) => m.def.for))].sort();
  const objs: StoredObject[] = [];
  for (const kind of kinds) {
    const here = world.store.peekAll(kind).filter((o) => o.metadata.deletionTimestamp === undefined && declared(o) && (target === undefined || keyOf(o.metadata) === target));
    for (const o of here.sort((a, b) => (keyOf(a.metadata) < keyOf(b.metadata) ? -1 : 1))) objs.push(o);
  }
  return objs[pick % Math.max(1, objs.length)];
}
