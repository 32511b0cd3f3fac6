import type { World } from '../../src/harness/world.js';
import { isStoreError } from '../../src/store/errors.js';
import { keyOf, type Json, type JsonObject, type StoredObject } from '../../src/store/object.js';
import { isTerminal, podClaimNames } from '../../src/environment/_internals/pods.js';

/**
 * The edits of the drift fault: which objects a controller manages, what each action changes on
 * one (a patch through the store, which validates it like any write), and edits of external
 * resources in the fake services.
 * @internal
 */

const ACTOR = 'environment:drift';
const LABEL = 'drift.steadystate.dev/edited';

/** What a drift event does to an object in the store. */
export type StoreAction = 'delete' | 'label' | 'annotation' | 'scale' | 'image' | 'data' | 'path';
export const ACTIONS: readonly StoreAction[] = ['delete', 'label', 'annotation', 'scale', 'image', 'data', 'path'];

/**
 * Objects a controller manages: controlled by an owner, or created by a controller, live and not
 * being deleted. Not the runtime's own leader-election Lease (`kube-system/<controller>-leader`,
 * src/runtime/leader-election.ts): it is the harness's bookkeeping written under the controller's
 * actor, not something the controller under test made or reconciles.
 */
function managed(world: World): StoredObject[] {
  const created = new Set<string>();
  for (const w of world.writes) {
    if (w.verb !== 'create' || w.rv === undefined || !w.actor.startsWith('controller:') || w.uid === undefined) continue;
    if (w.kind === 'Lease' && w.key.startsWith('kube-system/') && w.key.endsWith('-leader')) continue;
    created.add(w.uid);
  }
  const out: StoredObject[] = [];
  for (const kind of [...world.store.kindNames()].sort()) {
    const objs = world.store.peekAll(kind).filter((o) => o.metadata.deletionTimestamp === undefined && (o.metadata.ownerReferences.some((r) => r.controller) || created.has(o.metadata.uid)));
    // one by one: a spread of a million objects would overflow the stack
    for (const o of objs.sort((a, b) => (keyOf(a.metadata) < keyOf(b.metadata) ? -1 : 1))) out.push(o);
  }
  return out;
}

/** The patch an action makes to an object, or undefined when it does not apply to it. */
function patchFor(o: StoredObject, action: StoreAction, paths: Readonly<Record<string, readonly string[]>>): JsonObject | undefined {
  switch (action) {
    case 'delete':
      return {};
    case 'label':
      // a label of one's own (kubectl label): changing an existing one could take the object out of
      // its controller's selector, which releases it in Kubernetes; that is another story
      return { metadata: { labels: { [LABEL]: 'true' } } };
    case 'annotation': {
      const first = Object.keys(o.metadata.annotations).filter((k) => !k.startsWith('steadystate.dev/')).sort()[0];
      return { metadata: { annotations: first !== undefined ? { [first]: `${o.metadata.annotations[first]}-drifted` } : { [LABEL]: 'true' } } };
    }
    case 'scale': {
      const r = o.spec['replicas'];
      return typeof r === 'number' && Number.isInteger(r) ? { spec: { replicas: r + 1 } } : undefined;
    }
    case 'image': {
      // a Pod's containers, or a workload's pod template (kubectl set image)
      const podSpec = o.kind === 'Pod' ? o.spec : isRecord(o.spec['template']) && isRecord(o.spec['template']['spec']) ? o.spec['template']['spec'] : undefined;
      const containers = podSpec && Array.isArray(podSpec['containers']) ? podSpec['containers'] : undefined;
      const first = containers?.[0];
      if (!containers || !isRecord(first) || typeof first['image'] !== 'string') return undefined;
      const edited = [{ ...first, image: `${first['image']}-drifted` }, ...containers.slice(1)] as Json[];
      return o.kind === 'Pod' ? { spec: { containers: edited } } : { spec: { template: { spec: { containers: edited } } } };
    }
    case 'data': {
      if (o.kind !== 'ConfigMap' && o.kind !== 'Secret') return undefined;
      const data = o.data;
      const first = data && typeof data === 'object' ? Object.keys(data).sort()[0] : undefined;
      if (first === undefined) return undefined;
      const v = data![first]!;
      const next = o.kind === 'Secret' ? btoa(`${safeAtob(v)}-drifted`) : `${v}-drifted`;
      return { data: { [first]: next } };
    }
    case 'path': {
      const path = paths[o.kind]?.[0];
      if (path === undefined) return undefined;
      const segs = path.split('.');
      let v: unknown = o;
      for (const s of segs) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[s] : undefined;
      const next: Json | undefined = typeof v === 'number' ? v + 1 : typeof v === 'string' ? `${v}-drifted` : typeof v === 'boolean' ? !v : undefined;
      if (next === undefined) return undefined;
      let patch: Json = next;
      for (const s of [...segs].reverse()) patch = { [s]: patch };
      return patch as JsonObject;
    }
  }
}

function safeAtob(v: string): string {
  try {
    return atob(v);
  } catch {
    return v;
  }
}

export function driftStored(world: World, action: StoreAction, pick: number, paths: Readonly<Record<string, readonly string[]>>): Record<string, unknown> | undefined {
  const eligible: { o: StoredObject; patch: JsonObject }[] = [];
  const mounted = action === 'delete' ? claimsInUse(world) : undefined;
  for (const o of managed(world)) {
    // a claim a Pod mounts is not deleted at once: the API server's pvc-protection finalizer keeps
    // it Terminating until the Pod is gone, which a drift of one instant does not model (the
    // statefulset-partition hunt, stop 38: a Pod running on a claim that no longer existed)
    if (mounted !== undefined && o.kind === 'PersistentVolumeClaim' && mounted.has(keyOf(o.metadata))) continue;
    const patch = patchFor(o, action, paths);
    if (patch !== undefined) eligible.push({ o, patch });
  }
  const chosen = eligible[pick % Math.max(1, eligible.length)];
  if (!chosen) return undefined;
  const { o, patch } = chosen;
  const ref = o.metadata.namespace !== undefined ? { namespace: o.metadata.namespace, name: o.metadata.name } : { name: o.metadata.name };
  try {
    if (action === 'delete') world.store.delete(ACTOR, o.kind, ref, { preconditions: { uid: o.metadata.uid } });
    else world.store.patch(ACTOR, o.kind, ref, patch);
  } catch (err) {
    if (isStoreError(err)) return undefined; // the API server refused: nothing drifted
    throw err;
  }
  // a deleted object's generated-name prefix: same-end-state tells by it whether a replacement came (drift-marks.ts)
  const generated = action === 'delete' && o.metadata.generateName ? { generateName: o.metadata.generateName } : {};
  return { objectKind: o.kind, key: keyOf(o.metadata), uid: o.metadata.uid, ...(action !== 'delete' ? { patch } : generated) };
}

/** Keys of the PersistentVolumeClaims a Pod that has not finished mounts. */
function claimsInUse(world: World): Set<string> {
  const out = new Set<string>();
  for (const pod of world.store.peekAll('Pod')) {
    if (isTerminal(pod)) continue;
    for (const name of podClaimNames(pod)) out.add(keyOf({ namespace: pod.metadata.namespace, name }));
  }
  return out;
}

export function driftExternal(world: World, action: 'delete' | 'modify', pick: number): Record<string, unknown> | undefined {
  const found: { service: (typeof services)[number]; collection: string; id: string; body: JsonObject }[] = [];
  const services = [...(world.downstreamServices ?? [])].sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const service of services) {
    for (const g of service.byOwner()) for (const r of g.resources) found.push({ service, collection: g.collection, id: r.id, body: r });
  }
  const target = found[pick % Math.max(1, found.length)];
  if (!target) return undefined;
  if (action === 'delete') target.service.remove(target.collection, target.id);
  // fields no request may change (a record's zone) no console changes either
  else target.service.mutate(target.collection, target.id, altered(target.body, ['id', 'owner', ...target.service.options.immutableFields]));
  return { service: target.service.name, collection: target.collection, id: target.id, external: true };
}

/** Every top-level scalar changed (strings suffixed, numbers bumped, booleans flipped): an edit in a console. */
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

function isRecord(v: unknown): v is Record<string, Json> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
