import { cloneJson, jsonEqual, keyOf, virtualTimestamp, type Json, type JsonObject, type StoredObject } from '../store/object.js';
import type { ObjectStore } from '../store/store.js';
import type { ResolvedResource } from './resource-definition.js';
import type { ServeContext } from './serve-context.js';
import { KubeStatusError } from './status.js';
import { toWire } from './wire.js';
import type { StrategicMergeSchema } from './strategic-merge-patch.js';

/**
 * Field ownership of server-side apply (kube-apiserver's `metadata.managedFields`, after
 * sigs.k8s.io/structured-merge-diff): which field manager set which field of an object, the
 * merge of an applied configuration into the live object, conflicts and the `FieldsV1` encoding.
 *
 * A field path is a list of elements in the `FieldsV1` spelling — `f:<field>`, `k:<key fields
 * as JSON>` (an item of a list merged by key), `v:<value as JSON>` (an item of a set) — joined
 * by NUL. Lists with a merge key in the kind's {@link StrategicMergeSchema} are associative
 * (`listType=map`), lists of primitives marked `primitive` are sets, every other list is atomic.
 *
 * The ownership is kept beside the object store (one table per store), never in the stored
 * objects: traces, properties and every non-apply client see exactly what they saw before; only
 * objects a manager has applied carry `managedFields` on the wire.
 */

const SEP = '\u0000';

/** The part of an object a request writes: the main resource or its status. @internal */
export type ApplyScope = 'main' | 'status';

interface ManagerEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  subresource: string | undefined;
  fields: Set<string>;
}

interface ObjectFields {
  /** Undefined while the apply that creates the object is being stored. */
  uid: string | undefined;
  entries: ManagerEntry[];
}

/** One conflict of an apply: a field another manager owns, set to another value. @internal */
export interface FieldConflict {
  manager: string;
  path: string;
}

/** The outcome of planning one apply: the merged wire object and the managers after it. @internal */
export interface ApplyPlan {
  merged: JsonObject;
  entries: ManagerEntry[];
}

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const METADATA_FIELDS = ['labels', 'annotations', 'ownerReferences', 'finalizers'];

/**
 * The part of a wire object (an applied configuration or a live object) that field ownership is
 * about: for the main resource every top-level field but apiVersion, kind and status (status too
 * for a kind without a status subresource) and, of metadata, labels, annotations, owner
 * references and finalizers; for `/status` only the status. `null`s are dropped (an apply that
 * leaves a field out gives it up). @internal
 */
export function scoped(wire: JsonObject, scope: ApplyScope, resource: ResolvedResource): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(wire)) {
    if (k === 'apiVersion' || k === 'kind' || v === null) continue;
    if (k === 'status') {
      if (scope === 'status' || !resource.statusSubresource) out[k] = dropNulls(v);
      continue;
    }
    if (scope === 'status') continue;
    if (k === 'metadata') {
      if (!isObject(v)) continue;
      const meta: JsonObject = {};
      for (const f of METADATA_FIELDS) if (v[f] !== undefined && v[f] !== null) meta[f] = dropNulls(v[f]!);
      if (Object.keys(meta).length > 0) out[k] = meta;
      continue;
    }
    out[k] = dropNulls(v);
  }
  return out;
}

function dropNulls(v: Json): Json {
  if (Array.isArray(v)) return v.filter((x) => x !== null).map(dropNulls);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = dropNulls(x);
  return out;
}

function child(dotted: string, k: string): string {
  return dotted === '' ? k : `${dotted}.${k}`;
}

/**
 * The key fields of a keyed list, for server-side apply. The strategic merge schema names one
 * field; kube-apiserver's apply keys ports by the port and its protocol (`listMapKeys`), with the
 * protocol's default when an item leaves it out, so TCP and UDP on one port stay two items.
 */
function keyFields(rule: { readonly mergeKey: string; readonly listMapKeys?: readonly string[] }): readonly string[] {
  // a custom kind's list says its keys (x-kubernetes-list-map-keys)
  if (rule.listMapKeys !== undefined) return rule.listMapKeys;
  return rule.mergeKey === 'containerPort' || rule.mergeKey === 'port' ? [rule.mergeKey, 'protocol'] : [rule.mergeKey];
}

/** Defaults of key fields (applied when an item leaves its key field out). */
const KEY_DEFAULTS: Readonly<Record<string, Json>> = { protocol: 'TCP' };

function keyValue(item: JsonObject, k: string): Json | undefined {
  return item[k] ?? KEY_DEFAULTS[k];
}

function keyOfItem(keys: readonly string[], item: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of [...keys].sort()) out[k] = keyValue(item, k)!;
  return out;
}

function keyElement(keys: readonly string[], item: JsonObject): string {
  return `k:${JSON.stringify(keyOfItem(keys, item))}`;
}

/** Whether a list item has the key `want` (its key fields, defaults applied). */
function hasKey(x: Json, want: JsonObject): boolean {
  return isObject(x) && Object.entries(want).every(([k, w]) => jsonEqual(keyValue(x, k), w));
}

function keyedRule(schema: StrategicMergeSchema, dotted: string, list: Json[]): readonly string[] | undefined {
  const rule = schema[dotted];
  if (rule === undefined || !('mergeKey' in rule)) return undefined;
  return list.every((x) => isObject(x) && x[rule.mergeKey] !== undefined && x[rule.mergeKey] !== null) ? keyFields(rule) : undefined;
}

function isSet(schema: StrategicMergeSchema, dotted: string): boolean {
  const rule = schema[dotted];
  return rule !== undefined && 'primitive' in rule;
}

/** The set of fields of a (scoped) wire object: its leaves, and every item of a keyed list or set. @internal */
export function fieldSet(obj: JsonObject, schema: StrategicMergeSchema): Set<string> {
  const out = new Set<string>();
  walk(obj, [], '', schema, out);
  return out;
}

function walk(v: Json, prefix: string[], dotted: string, schema: StrategicMergeSchema, out: Set<string>): void {
  if (isObject(v)) {
    const keys = Object.keys(v);
    if (keys.length === 0 && prefix.length > 0) out.add(prefix.join(SEP));
    for (const k of keys) walk(v[k]!, [...prefix, `f:${k}`], child(dotted, k), schema, out);
    return;
  }
  if (Array.isArray(v) && v.length > 0) {
    const key = keyedRule(schema, dotted, v);
    if (key !== undefined) {
      for (const item of v as JsonObject[]) {
        const p = [...prefix, keyElement(key, item)];
        out.add(p.join(SEP));
        for (const k of Object.keys(item)) walk(item[k]!, [...p, `f:${k}`], child(dotted, k), schema, out);
      }
      return;
    }
    if (isSet(schema, dotted)) {
      for (const item of v) out.add([...prefix, `v:${JSON.stringify(item)}`].join(SEP));
      return;
    }
  }
  out.add(prefix.join(SEP));
}

function isItem(path: string): boolean {
  const last = path.slice(path.lastIndexOf(SEP) + 1);
  return last.startsWith('k:') || last.startsWith('v:');
}

/** The value at a field path, `undefined` when there is none. @internal */
export function valueAt(root: Json, path: string): Json | undefined {
  let cur: Json | undefined = root;
  for (const el of path.split(SEP)) {
    if (cur === undefined) return undefined;
    if (el.startsWith('f:')) {
      cur = isObject(cur) ? cur[el.slice(2)] : undefined;
    } else if (el.startsWith('k:')) {
      if (!Array.isArray(cur)) return undefined;
      const key = JSON.parse(el.slice(2)) as JsonObject;
      cur = cur.find((x) => hasKey(x, key));
    } else {
      if (!Array.isArray(cur)) return undefined;
      const want = JSON.parse(el.slice(2)) as Json;
      cur = cur.some((x) => jsonEqual(x, want)) ? want : undefined;
    }
  }
  return cur;
}

/** A field path as kube-apiserver prints it in conflicts: `.spec.containers[name="app"].image`. @internal */
export function printPath(path: string): string {
  return path
    .split(SEP)
    .map((el) => {
      if (el.startsWith('f:')) return `.${el.slice(2)}`;
      if (el.startsWith('v:')) return `[=${el.slice(2)}]`;
      const key = JSON.parse(el.slice(2)) as JsonObject;
      return `[${Object.entries(key)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(',')}]`;
    })
    .join('');
}

/**
 * Merges an applied configuration into a live wire object: maps field by field, keyed lists item
 * by item (new items after the live ones), sets as a union, atomic lists and scalars replaced.
 * Returns a new value; `live` is not modified.
 */
function merge(live: Json | undefined, cfg: Json, dotted: string, schema: StrategicMergeSchema): Json {
  if (isObject(cfg)) {
    const out: JsonObject = isObject(live) ? { ...live } : {};
    for (const [k, v] of Object.entries(cfg)) out[k] = merge(out[k], v, child(dotted, k), schema);
    return out;
  }
  if (Array.isArray(cfg)) {
    const base = Array.isArray(live) ? live : [];
    const key = keyedRule(schema, dotted, cfg);
    if (key !== undefined && keyedRule(schema, dotted, base) !== undefined) {
      const out = [...base];
      for (const item of cfg as JsonObject[]) {
        const want = keyOfItem(key, item);
        const at = out.findIndex((x) => hasKey(x, want));
        if (at >= 0) out[at] = merge(out[at], item, dotted, schema);
        else out.push(merge(undefined, item, dotted, schema));
      }
      return out;
    }
    if (isSet(schema, dotted)) {
      const out = [...base];
      for (const x of cfg) if (!out.some((y) => jsonEqual(x, y))) out.push(cloneJson(x));
      return out;
    }
    return cloneJson(cfg);
  }
  return cfg;
}

/** Removes the field at `path` from `root` (in place); then parents it left empty that nobody owns. */
function remove(root: JsonObject, path: string, owned: (path: string) => boolean): void {
  const els = path.split(SEP);
  for (let n = els.length; n >= 1; n--) {
    const at = els.slice(0, n);
    const el = at[n - 1]!;
    if (n < els.length) {
      // climb: a map the removal left empty goes too, unless it is owned or top-level
      const v = valueAt(root, at.join(SEP));
      if (n < 2 || !el.startsWith('f:') || !isObject(v) || Object.keys(v).length > 0 || owned(at.join(SEP))) return;
    }
    const parent = n === 1 ? root : valueAt(root, at.slice(0, -1).join(SEP));
    if (el.startsWith('f:')) {
      if (isObject(parent)) delete parent[el.slice(2)];
    } else if (Array.isArray(parent)) {
      const want = JSON.parse(el.slice(2)) as Json;
      const keep = el.startsWith('k:')
        ? (x: Json) => !hasKey(x, want as JsonObject)
        : (x: Json) => !jsonEqual(x, want);
      const kept = parent.filter(keep);
      parent.splice(0, parent.length, ...kept);
    }
  }
}

/** How kube-apiserver names a manager in a conflict message. */
function printManager(e: ManagerEntry): string {
  let s = JSON.stringify(e.manager);
  if (e.subresource !== undefined) s = `${s} with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') s = `${s} using ${e.apiVersion} at ${e.time.replace(/\.\d+Z$/, 'Z')}`;
  return s;
}

/** The 409 of an apply that conflicts, in kube-apiserver's words (`NewApplyConflict`). @internal */
export function conflictError(conflicts: readonly { entry: ManagerEntry; path: string }[]): KubeStatusError {
  const causes: Json[] = conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.entry)}`, field: printPath(c.path) }));
  let message: string;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0]!.entry)}: ${printPath(conflicts[0]!.path)}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const c of conflicts) {
      const m = printManager(c.entry);
      byManager.set(m, [...(byManager.get(m) ?? []), printPath(c.path)]);
    }
    const lines: string[] = [];
    for (const m of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${m}:`);
      for (const p of byManager.get(m)!) lines.push(`- ${p}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new KubeStatusError('Conflict', message, { causes });
}

/**
 * The field ownership of every object of one store that a manager has applied (objects never
 * applied have none). @internal
 */
export class FieldManagers {
  private readonly objects = new Map<string, ObjectFields>();

  private lookup(obj: StoredObject): ObjectFields | undefined {
    const k = `${obj.kind}${SEP}${keyOf(obj.metadata)}`;
    const f = this.objects.get(k);
    if (f !== undefined && f.uid === undefined) f.uid = obj.metadata.uid;
    if (f !== undefined && f.uid !== obj.metadata.uid) {
      this.objects.delete(k);
      return undefined;
    }
    return f;
  }

  /**
   * Runs `fn` (a dry-run request: kube-apiserver persists nothing, field owners neither) and puts
   * every object's ownership back as it was; `fn` renders its answer's managedFields itself.
   */
  unchanged<T>(fn: () => T): T {
    const saved = [...this.objects].map(([k, f]) => [k, { uid: f.uid, entries: f.entries.map((e) => ({ ...e, fields: new Set(e.fields) })) }] as const);
    try {
      return fn();
    } finally {
      this.objects.clear();
      for (const [k, f] of saved) this.objects.set(k, f);
    }
  }

  /** Whether a manager has applied this object (its ownership is tracked). */
  tracked(obj: StoredObject): boolean {
    return this.lookup(obj) !== undefined;
  }

  /**
   * Plans an apply of `cfg` (scoped, see {@link scoped}) by `manager` onto `live` (the wire
   * object; `undefined` when the apply creates it).
   * @throws KubeStatusError (409) on conflicts unless `force`
   */
  plan(obj: StoredObject | undefined, live: JsonObject, cfg: JsonObject, o: { manager: string; force: boolean; scope: ApplyScope; schema: StrategicMergeSchema; apiVersion: string; time: string }): ApplyPlan {
    const subresource = o.scope === 'status' ? 'status' : undefined;
    const entries = (obj !== undefined ? (this.lookup(obj)?.entries ?? []) : []).map((e) => ({ ...e, fields: new Set(e.fields) }));
    const mine = entries.find((e) => e.manager === o.manager && e.operation === 'Apply' && e.subresource === subresource);
    const others = entries.filter((e) => e !== mine);
    const applied = fieldSet(cfg, o.schema);
    const conflicts: { entry: ManagerEntry; path: string }[] = [];
    for (const p of applied) {
      if (isItem(p)) continue;
      const was = valueAt(live, p);
      if (was === undefined || jsonEqual(was, valueAt(cfg, p))) continue;
      for (const e of others) if (e.fields.has(p)) conflicts.push({ entry: e, path: p });
    }
    if (conflicts.length > 0 && !o.force) throw conflictError(conflicts);
    for (const c of conflicts) c.entry.fields.delete(c.path);
    const merged = cloneJson(merge(live, cfg, '', o.schema) as JsonObject);
    const owned = (p: string): boolean => applied.has(p) || others.some((e) => e.fields.has(p));
    const given = [...(mine?.fields ?? [])].filter((p) => !owned(p));
    // an item before the fields in it (it goes as a whole; they have nothing left to remove)
    for (const p of given) remove(merged, p, owned);
    const changed = mine === undefined || !sameSet(mine.fields, applied) || !jsonEqual(merged, live);
    const next: ManagerEntry = { manager: o.manager, operation: 'Apply', apiVersion: o.apiVersion, time: changed || mine === undefined ? o.time : mine.time, subresource, fields: applied };
    const out = [...others.filter((e) => e.fields.size > 0)];
    if (applied.size > 0) out.push(next);
    return { merged, entries: out };
  }

  /**
   * Records the managers of an object planned by {@link plan}, before the store writes it (so its
   * watch events carry them). `uid` undefined: the object the apply is about to create. Returns
   * the undo for a write the store then refuses.
   */
  commit(kind: string, key: string, uid: string | undefined, entries: ManagerEntry[]): () => void {
    const k = `${kind}${SEP}${key}`;
    const before = this.objects.get(k);
    this.objects.set(k, { uid, entries });
    return () => {
      if (before === undefined) this.objects.delete(k);
      else this.objects.set(k, before);
    };
  }

  /**
   * A write that is not an apply (PUT, merge/JSON/strategic patch) of an applied object: the
   * fields it changed or added now belong to `manager` (operation `Update`), the fields it
   * removed belong to nobody, as in kube-apiserver. Objects never applied are not tracked.
   */
  recordUpdate(before: JsonObject, after: StoredObject, afterWire: JsonObject, o: { manager: string; scope: ApplyScope; schema: StrategicMergeSchema; resource: ResolvedResource; time: string; subresource?: string }): void {
    const f = this.lookup(after);
    if (f === undefined) return;
    const b = scoped(before, o.scope, o.resource);
    const a = scoped(afterWire, o.scope, o.resource);
    const fb = fieldSet(b, o.schema);
    const fa = fieldSet(a, o.schema);
    const changed = [...fa].filter((p) => !fb.has(p) || (!isItem(p) && !jsonEqual(valueAt(b, p), valueAt(a, p))));
    const removed = [...fb].filter((p) => !fa.has(p));
    if (changed.length === 0 && removed.length === 0) return;
    // a Scale write is the parent's change of spec replicas, its entry marked `subresource: scale` (kube's ScaleHandler)
    const subresource = o.subresource ?? (o.scope === 'status' ? 'status' : undefined);
    let mine = f.entries.find((e) => e.manager === o.manager && e.operation === 'Update' && e.subresource === subresource);
    for (const e of f.entries) {
      for (const p of removed) e.fields.delete(p);
      if (e !== mine) for (const p of changed) e.fields.delete(p);
    }
    if (changed.length > 0) {
      if (mine === undefined) {
        mine = { manager: o.manager, operation: 'Update', apiVersion: o.resource.apiVersion, time: o.time, subresource, fields: new Set() };
        f.entries.push(mine);
      }
      for (const p of changed) mine.fields.add(p);
      mine.time = o.time;
    }
    f.entries = f.entries.filter((e) => e.fields.size > 0);
  }

  /** `metadata.managedFields` of an object as kube-apiserver serves it; `undefined` when never applied. */
  wire(obj: StoredObject): Json[] | undefined {
    const f = this.lookup(obj);
    if (f === undefined || f.entries.length === 0) return undefined;
    const sorted = [...f.entries].sort(
      (p, q) =>
        (p.operation < q.operation ? -1 : p.operation > q.operation ? 1 : 0) ||
        (p.operation === 'Update' ? (p.time < q.time ? -1 : p.time > q.time ? 1 : 0) : 0) ||
        (p.manager < q.manager ? -1 : p.manager > q.manager ? 1 : 0) ||
        ((p.subresource ?? '') < (q.subresource ?? '') ? -1 : (p.subresource ?? '') > (q.subresource ?? '') ? 1 : 0),
    );
    return sorted.map((e) => ({
      manager: e.manager,
      operation: e.operation,
      apiVersion: e.apiVersion,
      time: e.time,
      fieldsType: 'FieldsV1',
      fieldsV1: encodeFields(e.fields),
      ...(e.subresource !== undefined ? { subresource: e.subresource } : {}),
    }));
  }
}

function sameSet(a: Set<string>, b: Set<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

/** A field set as a `FieldsV1` trie: a key per element, `{}` for a member, `.` for a member with children. @internal */
export function encodeFields(fields: Iterable<string>): JsonObject {
  interface Node {
    member: boolean;
    children: Map<string, Node>;
  }
  const root: Node = { member: false, children: new Map() };
  for (const p of fields) {
    let node = root;
    for (const el of p.split(SEP)) {
      let next = node.children.get(el);
      if (next === undefined) {
        next = { member: false, children: new Map() };
        node.children.set(el, next);
      }
      node = next;
    }
    node.member = true;
  }
  const encode = (n: Node): JsonObject => {
    const out: JsonObject = {};
    if (n.member && n.children.size > 0) out['.'] = {};
    for (const k of [...n.children.keys()].sort()) out[k] = encode(n.children.get(k)!);
    return out;
  };
  return encode(root);
}

/** List merge keys of ObjectMeta, for custom kinds (whose other lists are atomic). */
const META_SCHEMA: StrategicMergeSchema = { 'metadata.finalizers': { primitive: true }, 'metadata.ownerReferences': { mergeKey: 'uid' } };

/**
 * List merge keys server-side apply uses for the kind: its strategic merge schema; for a custom
 * kind ObjectMeta's, and the lists its CRD's schema declares `x-kubernetes-list-type: map` (or
 * `set`). @internal
 */
export function applySchema(c: ServeContext): StrategicMergeSchema {
  return c.resource.strategicMerge ?? (c.resource.applyLists !== undefined ? { ...c.resource.applyLists, ...META_SCHEMA } : META_SCHEMA);
}

/** The field manager of a write that is not an apply: `fieldManager`, else the User-Agent's product, else the actor (as kube-apiserver defaults it). @internal */
export function updateManager(c: ServeContext): string {
  const given = c.url.searchParams.get('fieldManager');
  if (given !== null && given !== '') return given;
  const agent = (c.request.headers.get('user-agent') ?? '').split('/')[0]!.trim();
  return agent !== '' ? agent.slice(0, 128) : c.info.actor;
}

/**
 * After a write that is not an apply (PUT, merge/JSON/strategic patch): the fields it changed of
 * an object a manager has applied now belong to the writer (operation `Update`). @internal
 */
export function recordUpdate(c: ServeContext, before: StoredObject | undefined, after: StoredObject): void {
  const table = fieldManagersOf(c.api.store);
  if (before === undefined || !table.tracked(after)) return;
  table.recordUpdate(toWire(before, c.resource), after, toWire(after, c.resource), {
    manager: updateManager(c),
    scope: c.subresource === 'status' ? 'status' : 'main',
    schema: applySchema(c),
    resource: c.resource,
    time: managedTime(c.info.t),
    ...(c.subresource === 'scale' ? { subresource: 'scale' } : {}),
  });
}

const tables = new WeakMap<ObjectStore, FieldManagers>();

/** The field ownership table of a store (shared by every API server that serves it). @internal */
export function fieldManagersOf(store: ObjectStore): FieldManagers {
  let t = tables.get(store);
  if (t === undefined) {
    t = new FieldManagers();
    tables.set(store, t);
  }
  return t;
}

/** The managedFields time of a request (virtual time, whole seconds as in kube-apiserver). @internal */
export function managedTime(ms: number): string {
  return virtualTimestamp(Math.floor(ms / 1000) * 1000).replace(/\.\d+Z$/, 'Z');
}
