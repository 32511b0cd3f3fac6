import { cloneJson, type Json, type JsonObject } from '../store/object.js';

/**
 * Merge directives of a kind's lists, keyed by the dotted path of the list with no indices
 * (`spec.containers`, `spec.containers.ports`): a list of objects merged by a key, or a list of
 * primitives merged as a set. A list with no entry is replaced as a whole, as in
 * kube-apiserver.
 * @public
 */
export type StrategicMergeSchema = Readonly<Record<string, { readonly mergeKey: string; readonly listMapKeys?: readonly string[] } | { readonly primitive: true }>>;

/** Raised for a patch that cannot be applied (a bad directive); answered 400/422. @internal */
export class PatchError extends Error {}

const DELETE = Symbol('delete');
type Merged = Json | typeof DELETE;

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Applies a strategic merge patch (the Kubernetes dialect of merge patch) to a wire object:
 * maps merge recursively, `null` deletes, lists with a merge key merge item by item, and the
 * directives `$patch: replace | delete | merge`, `$retainKeys`, `$setElementOrder/<list>` and
 * `$deleteFromPrimitiveList/<list>` act as kubectl expects.
 * @param original - the current object (not modified)
 * @param patch - the patch body
 * @param schema - list merge keys of the kind
 * @internal
 */
export function applyStrategicMergePatch(original: JsonObject, patch: JsonObject, schema: StrategicMergeSchema): JsonObject {
  if (!isObject(patch)) throw new PatchError('a strategic merge patch must be a JSON object');
  const out = mergeMap(original, patch, schema, '');
  if (out === DELETE || !isObject(out)) throw new PatchError('the patch deletes the whole object');
  return out;
}

function mergeMap(original: JsonObject | undefined, patch: JsonObject, schema: StrategicMergeSchema, path: string): Merged {
  const directive = patch['$patch'];
  if (directive === 'delete') return DELETE;
  if (directive === 'replace') return strip(patch) as JsonObject;
  if (directive !== undefined && directive !== 'merge') throw new PatchError(`unknown $patch directive ${JSON.stringify(directive)} at ${path || '.'}`);
  const result: JsonObject = original ? { ...original } : {};
  const orders: [string, Json[]][] = [];
  const deletions: [string, Json[]][] = [];
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys') continue;
    if (k.startsWith('$setElementOrder/')) {
      if (!Array.isArray(v)) throw new PatchError(`${k} must be a list`);
      orders.push([k.slice('$setElementOrder/'.length), v]);
      continue;
    }
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      if (!Array.isArray(v)) throw new PatchError(`${k} must be a list`);
      deletions.push([k.slice('$deleteFromPrimitiveList/'.length), v]);
      continue;
    }
    const child = path === '' ? k : `${path}.${k}`;
    if (v === null) {
      delete result[k];
    } else if (Array.isArray(v)) {
      result[k] = mergeList(Array.isArray(result[k]) ? (result[k] as Json[]) : undefined, v, schema, child);
    } else if (isObject(v)) {
      const merged = mergeMap(isObject(result[k]) ? (result[k] as JsonObject) : undefined, v, schema, child);
      if (merged === DELETE) delete result[k];
      else result[k] = merged;
    } else {
      result[k] = v;
    }
  }
  for (const [list, values] of deletions) {
    const cur = result[list];
    if (Array.isArray(cur)) result[list] = cur.filter((x) => !values.some((d) => d === x));
  }
  for (const [list, order] of orders) {
    const cur = result[list];
    if (Array.isArray(cur)) result[list] = reorder(cur, order, schema[path === '' ? list : `${path}.${list}`]);
  }
  const retain = patch['$retainKeys'];
  if (retain !== undefined) {
    if (!Array.isArray(retain) || !retain.every((x) => typeof x === 'string')) throw new PatchError(`$retainKeys at ${path || '.'} must be a list of field names`);
    for (const k of Object.keys(result)) if (!retain.includes(k)) delete result[k];
  }
  return result;
}

function mergeList(original: Json[] | undefined, patch: Json[], schema: StrategicMergeSchema, path: string): Json[] {
  if (patch.some((x) => isObject(x) && x['$patch'] === 'replace')) return patch.filter((x) => !(isObject(x) && x['$patch'] === 'replace')).map(strip);
  const rule = schema[path];
  if (rule === undefined) return patch.map(strip);
  const result = cloneJson(original ?? []);
  if ('primitive' in rule) {
    for (const v of patch) if (!result.some((x) => x === v)) result.push(v);
    return result;
  }
  const key = rule.mergeKey;
  for (const item of patch) {
    if (!isObject(item) || item[key] === undefined) throw new PatchError(`${path}: every item of a strategic merge patch list needs its merge key "${key}"`);
    const at = result.findIndex((o) => isObject(o) && o[key] === item[key]);
    if (item['$patch'] === 'delete') {
      if (at >= 0) result.splice(at, 1);
      continue;
    }
    const merged = mergeMap(at >= 0 ? (result[at] as JsonObject) : undefined, item, schema, path);
    if (merged === DELETE) {
      if (at >= 0) result.splice(at, 1);
    } else if (at >= 0) result[at] = merged;
    else result.push(merged);
  }
  return result;
}

/** Items named by `$setElementOrder` first, in its order; the rest after, in their order. */
function reorder(list: Json[], order: Json[], rule: StrategicMergeSchema[string] | undefined): Json[] {
  const key = rule && 'mergeKey' in rule ? rule.mergeKey : undefined;
  const id = (x: Json): Json => (key !== undefined && isObject(x) ? (x[key] ?? null) : x);
  const wanted = order.map(id);
  const ranked = list.map((x, i) => ({ x, i, r: wanted.findIndex((w) => w === id(x)) }));
  ranked.sort((a, b) => (a.r < 0 ? Infinity : a.r) - (b.r < 0 ? Infinity : b.r) || a.i - b.i);
  return ranked.map((e) => e.x);
}

/** Removes directives from a subtree that replaces what was there. */
function strip(v: Json): Json {
  if (Array.isArray(v)) return v.map(strip);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) if (!k.startsWith('$')) out[k] = strip(x);
  return out;
}
